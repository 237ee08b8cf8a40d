/*! \brief topk (value / indices / mask / both), sort and argsort along an axis or the flattened
 *  input, and the gradients of the values they return. */
#include "sort.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(TopKParam);
DMLC_REGISTER_PARAMETER(SortParam);
DMLC_REGISTER_PARAMETER(ArgSortParam);

namespace {

/*! \brief The sort's geometry once the input shape is known, with MXNet's checks: the axis
 *  exists, and an index dtype holds every index of it exactly. */
bool CheckedGeom(const Shape& x, const dmlc::optional<int>& axis, int k, int index_dtype,
                 SortGeom* g) {
  if (!x.is_known()) return false;
  if (axis.has_value()) {
    SYMNET_CHECK(axis.value() >= -x.ndim() && axis.value() < x.ndim())
        << "axis " << axis.value() << " is out of range for an input of shape " << x;
  }
  *g = MakeSortGeom(x, axis, k, true);
  if (index_dtype >= 0) {
    const auto t = static_cast<DType>(index_dtype);
    const int64_t exact = t == DType::kFloat16   ? 2048
                          : t == DType::kUint8   ? 255
                          : t == DType::kFloat32 ? (int64_t{1} << 24)
                                                 : INT64_MAX;
    SYMNET_CHECK(g->len - 1 <= exact)
        << "dtype " << t << " cannot hold the indices of an axis of length " << g->len
        << " exactly; use int32 or int64";
  }
  return true;
}

/*! \brief x with the searched axis cut to k elements; (k,) for the flattened input. */
Shape TakenShape(const Shape& x, const dmlc::optional<int>& axis, int64_t k) {
  if (!axis.has_value()) return Shape{k};
  Shape o = x;
  o[axis.value() < 0 ? axis.value() + x.ndim() : axis.value()] = k;
  return o;
}

bool TopKShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const TopKParam& p = Param<TopKParam>(attrs);
  const bool has_indices = p.ret_typ == kTopKIndices || p.ret_typ == kTopKBoth;
  SortGeom g;
  if (!CheckedGeom((*in)[0], p.axis, p.k, has_indices ? p.dtype : -1, &g)) return false;
  if (p.ret_typ == kTopKMask) {
    AssignOutShape(out, 0, (*in)[0]);
    return true;
  }
  for (size_t i = 0; i < out->size(); ++i)
    AssignOutShape(out, i, TakenShape((*in)[0], p.axis, g.k));
  return true;
}

bool TopKType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const TopKParam& p = Param<TopKParam>(attrs);
  const DType index = static_cast<DType>(p.dtype);
  switch (p.ret_typ) {
    case kTopKIndices:
      (*out)[0] = index;
      break;
    case kTopKBoth:
      (*out)[1] = index;
      [[fallthrough]];
    default:  // values and the mask have the data's dtype
      if ((*in)[0] == DType::kUnknown) return false;
      (*out)[0] = (*in)[0];
  }
  return (*in)[0] != DType::kUnknown;
}

std::vector<NodeEntry> TopKGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  const int r = Param<TopKParam>(n->attrs).ret_typ;
  if (r == kTopKIndices || r == kTopKMask) return NoInputGradients(n, ograds);
  return MakeGradNode("_backward_topk", n, {ograds[0], n->inputs[0]}, ParamsOf(n));
}

bool SortShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const SortParam& p = Param<SortParam>(attrs);
  SortGeom g;
  if (!CheckedGeom((*in)[0], p.axis, 0, -1, &g)) return false;
  AssignOutShape(out, 0, TakenShape((*in)[0], p.axis, g.len));
  return true;
}

bool ArgSortShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ArgSortParam& p = Param<ArgSortParam>(attrs);
  SortGeom g;
  if (!CheckedGeom((*in)[0], p.axis, 0, p.dtype, &g)) return false;
  AssignOutShape(out, 0, TakenShape((*in)[0], p.axis, g.len));
  return true;
}

bool ArgSortType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  (*out)[0] = static_cast<DType>(Param<ArgSortParam>(attrs).dtype);
  return (*in)[0] != DType::kUnknown;
}

uint32_t TopKOutputs(const NodeAttrs& attrs) {
  return Param<TopKParam>(attrs).ret_typ == kTopKBoth ? 2 : 1;
}

}  // namespace

SYMNET_REGISTER_OP(topk)
    .describe(
        "The k largest (or smallest) elements along an axis: their values, their indices, a 0/1 "
        "mask, or values and indices. Ties keep their index order; NaN counts as the largest. "
        "The values' gradient goes back to the elements taken.")
    .set_num_outputs(TopKOutputs)
    .set_attr_parser(ParamParser<TopKParam>)
    .add_arguments(ParamDocs<TopKParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", TopKShape)
    .set_attr<FInferType>("FInferType", TopKType)
    .set_attr<FTempSpace>("FTempSpace", RankTempBytes)
    .set_attr<FGradient>("FGradient", TopKGradient)
    .set_attr<FCompute>("FCompute<cpu>", TopKCompute<cpu>);

SYMNET_REGISTER_OP(_backward_topk)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<TopKParam>)
    .add_arguments(ParamDocs<TopKParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", RankTempBytes)
    .set_attr<FCompute>("FCompute<cpu>", TopKGradCompute<cpu>);

SYMNET_REGISTER_OP(sort)
    .describe(
        "The elements sorted along an axis (stably; NaN counts as the largest). The gradient goes "
        "back to each element's place.")
    .set_attr_parser(ParamParser<SortParam>)
    .add_arguments(ParamDocs<SortParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", SortShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FTempSpace>("FTempSpace", RankTempBytes)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_sort"))
    .set_attr<FCompute>("FCompute<cpu>", SortCompute<cpu>);

SYMNET_REGISTER_OP(_backward_sort)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SortParam>)
    .add_arguments(ParamDocs<SortParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", RankTempBytes)
    .set_attr<FCompute>("FCompute<cpu>", SortGradCompute<cpu>);

SYMNET_REGISTER_OP(argsort)
    .describe(
        "The indices that sort the elements along an axis (stably; NaN counts as the largest). "
        "Indices have no gradient.")
    .set_attr_parser(ParamParser<ArgSortParam>)
    .add_arguments(ParamDocs<ArgSortParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ArgSortShape)
    .set_attr<FInferType>("FInferType", ArgSortType)
    .set_attr<FTempSpace>("FTempSpace", RankTempBytes)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", ArgSortCompute<cpu>);

}  // namespace ops
}  // namespace symnet
