/*! \brief _slice_assign and _slice_assign_scalar (slice_assign.h): shape rules and registration. */
#include "slice_assign.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SliceAssignScalarParam);

namespace {

/*! \brief out and lhs share a shape; with it known, rhs must be the box's shape. */
bool SliceAssignShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape s = (*in)[0];
  ShapeAssign(&s, (*out)[0]);
  AssignInShape(in, 0, s);
  AssignOutShape(out, 0, s);
  if (!s.is_known()) return false;
  if (in->size() > 1) {
    Shape box;
    for (const DimRange& r : SliceRanges(Param<SliceParam>(attrs), s)) box.push_back(r.count);
    AssignInShape(in, 1, box);
  }
  return true;
}

bool SliceAssignScalarShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  return ElemwiseShape(NodeAttrs(), in, out);
}

std::vector<std::pair<int, int>> InplaceLhs(const NodeAttrs&) { return {{0, 0}}; }

}  // namespace

SYMNET_REGISTER_OP(_slice_assign)
    .add_alias("_crop_assign")
    .describe(
        "Returns lhs with the box begin/end/step (slice's rules) replaced by rhs, whose shape "
        "must be the box's; usually run in place (out=lhs).")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SliceParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "The array to assign into.")
    .add_argument("rhs", "NDArray-or-Symbol", "The values for the box.")
    .add_arguments(ParamDocs<SliceParam>())
    .set_attr<FInferShape>("FInferShape", SliceAssignShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceLhs)
    .set_attr<FCompute>("FCompute<cpu>", SliceAssignForward<cpu>);

SYMNET_REGISTER_OP(_slice_assign_scalar)
    .add_alias("_crop_assign_scalar")
    .describe(
        "Returns data with every element of the box begin/end/step (slice's rules) set to "
        "scalar; usually run in place (out=data).")
    .set_attr_parser(ParamParser<SliceAssignScalarParam>)
    .add_argument("data", "NDArray-or-Symbol", "The array to assign into.")
    .add_arguments(ParamDocs<SliceAssignScalarParam>())
    .set_attr<FInferShape>("FInferShape", SliceAssignScalarShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceLhs)
    .set_attr<FCompute>("FCompute<cpu>", SliceAssignScalarForward<cpu>);

}  // namespace ops
}  // namespace symnet
