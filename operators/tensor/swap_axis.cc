/*! \brief SwapAxis (alias swapaxes): its axis rule, shape rule and registration (swap_axis.h). */
#include "swap_axis.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SwapAxisParam);

std::vector<int> SwapAxisPerm(const SwapAxisParam& p, const Shape& in) {
  const int nd = in.ndim();
  std::vector<int> perm(nd);
  for (int d = 0; d < nd; ++d) perm[d] = d;
  int a[2] = {p.dim1, p.dim2};
  for (int k = 0; k < 2; ++k) {
    SYMNET_CHECK(a[k] >= -nd && a[k] < nd)
        << "SwapAxis: dim" << k + 1 << " " << a[k] << " is out of range for an input of shape "
        << in << " (expected " << -nd << " to " << nd - 1 << ")";
    if (a[k] < 0) a[k] += nd;
  }
  perm[a[0]] = a[1];
  perm[a[1]] = a[0];
  return perm;
}

namespace {

bool SwapAxisShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const std::vector<int> perm = SwapAxisPerm(Param<SwapAxisParam>(attrs), s);
  Shape o = Shape::Scalar();
  for (int a : perm) o.push_back(s[a]);
  AssignOutShape(out, 0, o);
  return o.is_known();
}

}  // namespace

SYMNET_REGISTER_OP(SwapAxis)
    .add_alias("swapaxes")
    .describe("Exchanges axes dim1 and dim2 of the input (a transpose of two axes).")
    .set_attr_parser(ParamParser<SwapAxisParam>)
    .add_arguments(ParamDocs<SwapAxisParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", SwapAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_SwapAxis"))
    .set_attr<FCompute>("FCompute<cpu>", SwapAxisCompute<cpu>);

SYMNET_REGISTER_OP(_backward_SwapAxis)
    .set_attr_parser(ParamParser<SwapAxisParam>)
    .add_arguments(ParamDocs<SwapAxisParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", SwapAxisCompute<cpu>);

}  // namespace ops
}  // namespace symnet
