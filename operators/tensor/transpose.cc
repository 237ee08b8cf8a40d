/*! \brief transpose: shape rule, gradient and the CPU kernel (transpose.h). */
#include "transpose.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(TransposeParam);

std::vector<int> TransposeAxes(const TransposeParam& p, int ndim) {
  std::vector<int> axes;
  if (!p.axes.ndim_known() || p.axes.ndim() == 0) {
    for (int d = ndim - 1; d >= 0; --d) axes.push_back(d);
    return axes;
  }
  SYMNET_CHECK_EQ(p.axes.ndim(), ndim)
      << "transpose axes " << p.axes << " must name each of the " << ndim << " input dims once";
  std::vector<bool> seen(ndim, false);
  for (int d = 0; d < ndim; ++d) {
    const int64_t a = p.axes[d] < 0 ? p.axes[d] + ndim : p.axes[d];
    SYMNET_CHECK(a >= 0 && a < ndim && !seen[a])
        << "transpose axes " << p.axes << " are not a permutation of the " << ndim << " input dims";
    seen[a] = true;
    axes.push_back(static_cast<int>(a));
  }
  return axes;
}

namespace {

/*! \brief Works on partial shapes, both ways: once either side's ndim is known, output dim i
 *  and input dim axes[i] are one dim, and whichever side knows it gives it to the other (an
 *  unknown batch dim stays unknown, as MXNet's infer_shape_partial). */
bool TransposeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& x = (*in)[0];
  const Shape& known_y = (*out)[0];
  if (!x.ndim_known() && !known_y.ndim_known()) return false;
  const int ndim = x.ndim_known() ? x.ndim() : known_y.ndim();
  const std::vector<int> axes = TransposeAxes(Param<TransposeParam>(attrs), ndim);
  Shape y = Shape::Unknown(ndim);
  for (int i = 0; i < ndim && x.ndim_known(); ++i) y[i] = x[axes[i]];
  AssignOutShape(out, 0, y);  // throws if the output has another ndim
  Shape back = Shape::Unknown(ndim);
  for (int i = 0; i < ndim; ++i) back[axes[i]] = known_y[i];
  AssignInShape(in, 0, back);
  return (*in)[0].is_known() && (*out)[0].is_known();
}

}  // namespace

SYMNET_REGISTER_OP(transpose)
    .describe(
        "Permutes the axes of the input: output dim i is input dim axes[i]; by default the "
        "axes are reversed.")
    .set_attr_parser(ParamParser<TransposeParam>)
    .add_arguments(ParamDocs<TransposeParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", TransposeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return MakeGradNode("_backward_transpose", n, {ograds[0]}, ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute<cpu>);

SYMNET_REGISTER_OP(_backward_transpose)
    .set_attr_parser(ParamParser<TransposeParam>)
    .add_arguments(ParamDocs<TransposeParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", TransposeGradCompute<cpu>);

}  // namespace ops
}  // namespace symnet
