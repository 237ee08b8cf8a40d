/*! \brief sum, mean, max, min, prod, nansum and nanprod over axes (axis, keepdims, exclude), and
 *  their gradients. */
#include "reduce.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ReduceParam);

namespace {

bool ReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].is_known()) return false;
  AssignOutShape(out, 0, OutputShape(Param<ReduceParam>(attrs), (*in)[0]));
  return true;
}

}  // namespace

// a reduction and its backward op: GRAD_USE says what the backward reads besides dy (nothing for
// sum and mean; x and the result for the others), NIN how many inputs that makes
#define SYMNET_REGISTER_REDUCTION(NAME, DOC, GRAD_USE, NIN, FORWARD, BACKWARD) \
  SYMNET_REGISTER_OP(NAME)                                                     \
      .describe(DOC)                                                           \
      .set_attr_parser(ParamParser<ReduceParam>)                               \
      .add_arguments(ParamDocs<ReduceParam>())                                 \
      .add_argument("data", "NDArray-or-Symbol", "The input.")                 \
      .set_attr<FInferShape>("FInferShape", ReduceShape)                       \
      .set_attr<FInferType>("FInferType", ElemwiseType)                        \
      .set_attr<FGradient>("FGradient", GRAD_USE("_backward_" #NAME))          \
      .set_attr<FCompute>("FCompute<cpu>", FORWARD);                           \
  SYMNET_REGISTER_OP(_backward_##NAME)                                         \
      .set_num_inputs(NIN)                                                     \
      .set_attr_parser(ParamParser<ReduceParam>)                               \
      .add_arguments(ParamDocs<ReduceParam>())                                 \
      .set_attr<TIsBackward>("TIsBackward", true)                              \
      .set_attr<FCompute>("FCompute<cpu>", BACKWARD);

SYMNET_REGISTER_REDUCTION(sum, "Sum of array elements over the given axes.", ElemwiseGradUseNone, 1,
                          ReduceCompute<false>, ReduceGradCompute<false>)
SYMNET_REGISTER_OP(sum).add_alias("sum_axis");
SYMNET_REGISTER_REDUCTION(mean, "Mean of array elements over the given axes.", ElemwiseGradUseNone,
                          1, ReduceCompute<true>, ReduceGradCompute<true>)

#define SYMNET_REGISTER_REDUCE_AXES(NAME, REDUCER, GRAD, DOC)                               \
  SYMNET_REGISTER_REDUCTION(NAME, DOC, ElemwiseGradUseInOut, 3, ReduceAxesCompute<REDUCER>, \
                            ReduceAxesGradCompute<GRAD>)
SYMNET_REDUCE_AXES_OPS(SYMNET_REGISTER_REDUCE_AXES)
SYMNET_REGISTER_OP(max).add_alias("max_axis");
SYMNET_REGISTER_OP(min).add_alias("min_axis");

}  // namespace ops
}  // namespace symnet
