/*! \brief slice_like: data cut to shape_like's shape on the chosen axes, a box at the leading
 *  corner (slice.h), so its kernels are slice's box copies. */
#include <string>
#include <vector>

#include "slice.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SliceLikeParam);

SliceBox CornerBoxOf(const NodeAttrs&, const Shape& whole, const Shape& part) {
  std::vector<DimRange> r(whole.ndim());
  for (int d = 0; d < whole.ndim(); ++d) r[d] = DimRange{0, 1, part[d]};
  return MakeBox(whole, r);
}

namespace {

/*! \brief data's shape with each chosen axis as long as shape_like's (never longer than data's;
 *  every axis when `axes` is empty). */
bool SliceLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &d = (*in)[0], &like = (*in)[1];
  if (!d.ndim_known() || !like.ndim_known()) return false;
  const Shape& axes = Param<SliceLikeParam>(attrs).axes;
  std::vector<int> cut;
  if (axes.ndim() <= 0) {
    SYMNET_CHECK(d.ndim() == like.ndim())
        << "slice_like: with no axes every axis is cut, so data " << d << " and shape_like " << like
        << " need the same number of dims";
    for (int i = 0; i < d.ndim(); ++i) cut.push_back(i);
  }
  for (int i = 0; i < axes.ndim(); ++i) {
    const int64_t a = axes[i], ax = a < 0 ? a + d.ndim() : a;
    SYMNET_CHECK(ax >= 0 && ax < d.ndim())
        << "slice_like: axis " << a << " of axes " << axes << " is out of range for data of "
        << "shape " << d << " (expected " << -d.ndim() << " to " << d.ndim() - 1 << ")";
    SYMNET_CHECK(ax < like.ndim()) << "slice_like: axis " << a << " of axes " << axes
                                   << " is past the dims of shape_like's shape " << like;
    cut.push_back(static_cast<int>(ax));
  }
  Shape o = d;
  for (int ax : cut) {
    SYMNET_CHECK(like[ax] < 0 || d[ax] < 0 || like[ax] <= d[ax])
        << "slice_like: shape_like " << like << " is longer than data " << d << " in axis " << ax
        << "; slice_like only cuts";
    o[ax] = like[ax];
  }
  AssignOutShape(out, 0, o);
  return o.is_known();
}

/*! \brief The output has data's dtype; shape_like's is free. */
bool SliceLikeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> data{(*in)[0]};
  const bool known = ElemwiseType(attrs, &data, out);
  AssignType(in, 0, data[0], true);
  return known;
}

std::vector<NodeEntry> SliceLikeGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_slice_like", n, {ograds[0]}, ParamsOf(n));
  return {g[0], NoGradient()};  // shape_like's gradient: zeros
}

std::vector<std::string> SliceLikeInputs(const NodeAttrs&) { return {"data", "shape_like"}; }

}  // namespace

SYMNET_REGISTER_OP(slice_like)
    .describe(
        "Cuts data to the shape of shape_like on the given axes (all when axes is empty), "
        "keeping indices from 0. The gradient puts dy in that corner and zeros elsewhere; "
        "shape_like gets zeros.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SliceLikeParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_argument("shape_like", "NDArray-or-Symbol", "Only its shape is used.")
    .add_arguments(ParamDocs<SliceLikeParam>())
    .set_attr<FListInputNames>("FListInputNames", SliceLikeInputs)
    .set_attr<FInferShape>("FInferShape", SliceLikeShape)
    .set_attr<FInferType>("FInferType", SliceLikeType)
    .set_attr<FGradient>("FGradient", SliceLikeGradient)
    .set_attr<FCompute>("FCompute<cpu>", BoxForward<cpu, CornerBoxOf>);

SYMNET_REGISTER_OP(_backward_slice_like)
    .set_attr_parser(ParamParser<SliceLikeParam>)
    .add_arguments(ParamDocs<SliceLikeParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BoxBackward<cpu, CornerBoxOf>);

}  // namespace ops
}  // namespace symnet
