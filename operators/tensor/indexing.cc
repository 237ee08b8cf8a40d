/*! \brief take, pick and one_hot (indexing.h): shape and type rules, and the registrations. */
#include "indexing.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(TakeParam);
DMLC_REGISTER_PARAMETER(PickParam);
DMLC_REGISTER_PARAMETER(OneHotParam);

int IndexAxis(int axis, const Shape& s, const char* what) {
  const int nd = s.ndim();
  SYMNET_CHECK(nd >= 1) << what << " needs an input of at least one dim, got shape " << s;
  SYMNET_CHECK(axis >= -nd && axis < nd)
      << what << ": axis " << axis << " is out of range for an input of shape " << s
      << " (expected " << -nd << " to " << nd - 1 << ")";
  return axis < 0 ? axis + nd : axis;
}

int PickAxis(const PickParam& p, const Shape& data) {
  SYMNET_CHECK(p.axis.has_value())
      << "pick: axis=None (picking from the flattened input) is not supported, as in MXNet "
         "1.9.1; give an axis";
  return IndexAxis(p.axis.value(), data, "pick");
}

namespace {

/*! \brief The output has the dtype of the data (input 0); the index array's dtype is free. */
bool DataType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> data{(*in)[0]};
  const bool known = ElemwiseType(attrs, &data, out);
  AssignType(in, 0, data[0], true);
  return known;
}

/*! \brief a's dims before the axis, then the indices' dims, then a's dims after the axis. */
bool TakeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &a = (*in)[0], &idx = (*in)[1];
  if (!a.ndim_known() || !idx.ndim_known()) return false;
  const int axis = IndexAxis(Param<TakeParam>(attrs).axis, a, "take");
  Shape o = Shape::Scalar();
  for (int d = 0; d < axis; ++d) o.push_back(a[d]);
  for (int d = 0; d < idx.ndim(); ++d) o.push_back(idx[d]);
  for (int d = axis + 1; d < a.ndim(); ++d) o.push_back(a[d]);
  AssignOutShape(out, 0, o);
  return o.is_known();
}

/*!
 * \brief The index array has the data's shape without the axis, or with the axis of length 1
 *  (both accepted, as MXNet does); so has the output, per keepdims. Without the axis a 1-D input
 *  would leave no dims: MXNet 1.x has no 0-d arrays, so that is (1,).
 */
bool PickShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  const PickParam& p = Param<PickParam>(attrs);
  const int axis = PickAxis(p, d);
  Shape keep = d, drop = Shape::Scalar();
  keep[axis] = 1;
  for (int i = 0; i < d.ndim(); ++i)
    if (i != axis) drop.push_back(d[i]);
  if (drop.ndim() == 0) drop.push_back(1);
  const Shape& idx = (*in)[1];
  AssignInShape(in, 1, idx.ndim_known() && idx.ndim() == keep.ndim() ? keep : drop);
  AssignOutShape(out, 0, p.keepdims ? keep : drop);
  return d.is_known();
}

void OneHotParser(NodeAttrs* attrs) {
  ParamParser<OneHotParam>(attrs);
  const int depth = Param<OneHotParam>(*attrs).depth;
  if (depth < 0) throw dmlc::ParamError("depth " + std::to_string(depth) + " must not be negative");
}

/*! \brief The indices' shape plus a last axis of length depth (and back from the output). */
bool OneHotShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &idx = (*in)[0], &o = (*out)[0];
  if (!idx.ndim_known() && o.ndim_known() && o.ndim() >= 1) {
    AssignInShape(in, 0, Shape(o.begin(), o.end() - 1));
  }
  if (!(*in)[0].ndim_known()) return false;
  Shape s = (*in)[0];
  s.push_back(Param<OneHotParam>(attrs).depth);
  AssignOutShape(out, 0, s);
  return s.is_known();
}

bool OneHotType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignType(out, 0, static_cast<DType>(Param<OneHotParam>(attrs).dtype), false);
  return true;
}

/*! \brief Space to resolve the indices (input `k`) into int64 positions. */
template <int k>
size_t IndexTemp(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<DType>&) {
  return IndexTempBytes(in[k]);
}

/*! \brief The data's gradient from a backward op fed (dy, indices); the indices get none. */
FGradient IndexGradient(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    auto g = MakeGradNode(backward_op, n, {ograds[0], n->inputs[1]}, ParamsOf(n));
    return std::vector<NodeEntry>{g[0], NoGradient()};
  };
}

std::vector<std::string> TakeInputs(const NodeAttrs&) { return {"a", "indices"}; }
std::vector<std::string> PickInputs(const NodeAttrs&) { return {"data", "index"}; }
std::vector<std::string> OneHotInputs(const NodeAttrs&) { return {"indices"}; }

}  // namespace

SYMNET_REGISTER_OP(take)
    .describe(
        "Takes slices of `a` along `axis` at the given indices: the output is a's dims before "
        "the axis, then the indices' dims, then a's dims after the axis. The gradient adds the "
        "output gradient back at each index (repeated indices add up); the indices get none.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<TakeParam>)
    .add_argument("a", "NDArray-or-Symbol", "The input array.")
    .add_argument("indices", "NDArray-or-Symbol", "The indices (any dtype; floats truncate).")
    .add_arguments(ParamDocs<TakeParam>())
    .set_attr<FListInputNames>("FListInputNames", TakeInputs)
    .set_attr<FInferShape>("FInferShape", TakeShape)
    .set_attr<FInferType>("FInferType", DataType)
    .set_attr<FTempSpace>("FTempSpace", IndexTemp<1>)
    .set_attr<FGradient>("FGradient", IndexGradient("_backward_take"))
    .set_attr<FCompute>("FCompute<cpu>", TakeForward<cpu>);

SYMNET_REGISTER_OP(_backward_take)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<TakeParam>)
    .add_arguments(ParamDocs<TakeParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", IndexTemp<1>)
    .set_attr<FCompute>("FCompute<cpu>", TakeBackward<cpu>);

SYMNET_REGISTER_OP(pick)
    .describe(
        "Picks one element along `axis` for each position of the other axes: out[i, j] = "
        "data[i, index[i, j], j]. The gradient puts the output gradient at the picked "
        "positions; the index gets none.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<PickParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_argument("index", "NDArray-or-Symbol",
                  "The index along the axis per position (any dtype; floats truncate).")
    .add_arguments(ParamDocs<PickParam>())
    .set_attr<FListInputNames>("FListInputNames", PickInputs)
    .set_attr<FInferShape>("FInferShape", PickShape)
    .set_attr<FInferType>("FInferType", DataType)
    .set_attr<FTempSpace>("FTempSpace", IndexTemp<1>)
    .set_attr<FGradient>("FGradient", IndexGradient("_backward_pick"))
    .set_attr<FCompute>("FCompute<cpu>", PickForward<cpu>);

SYMNET_REGISTER_OP(_backward_pick)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<PickParam>)
    .add_arguments(ParamDocs<PickParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", IndexTemp<1>)
    .set_attr<FCompute>("FCompute<cpu>", PickBackward<cpu>);

SYMNET_REGISTER_OP(one_hot)
    .describe(
        "One-hot encoding: adds a last axis of length depth holding on_value at each index's "
        "position and off_value elsewhere; an index outside [0, depth) gives a row of "
        "off_value. Not differentiable (the indices get no gradient).")
    .set_attr_parser(OneHotParser)
    .add_argument("indices", "NDArray-or-Symbol", "The indices (any dtype; floats truncate).")
    .add_arguments(ParamDocs<OneHotParam>())
    .set_attr<FListInputNames>("FListInputNames", OneHotInputs)
    .set_attr<FInferShape>("FInferShape", OneHotShape)
    .set_attr<FInferType>("FInferType", OneHotType)
    .set_attr<FTempSpace>("FTempSpace", IndexTemp<0>)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", OneHotForward<cpu>);

}  // namespace ops
}  // namespace symnet
