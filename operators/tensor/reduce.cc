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

#define SYMNET_REGISTER_REDUCE(NAME, IS_MEAN, DOC)                               \
  SYMNET_REGISTER_OP(NAME)                                                       \
      .describe(DOC)                                                             \
      .set_attr_parser(ParamParser<ReduceParam>)                                 \
      .add_arguments(ParamDocs<ReduceParam>())                                   \
      .add_argument("data", "NDArray-or-Symbol", "The input.")                   \
      .set_attr<FInferShape>("FInferShape", ReduceShape)                         \
      .set_attr<FInferType>("FInferType", ElemwiseType)                          \
      .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_" #NAME)) \
      .set_attr<FCompute>("FCompute<cpu>", ReduceCompute<IS_MEAN>);              \
  SYMNET_REGISTER_OP(_backward_##NAME)                                           \
      .set_attr_parser(ParamParser<ReduceParam>)                                 \
      .add_arguments(ParamDocs<ReduceParam>())                                   \
      .set_attr<TIsBackward>("TIsBackward", true)                                \
      .set_attr<FCompute>("FCompute<cpu>", ReduceGradCompute<IS_MEAN>)

SYMNET_REGISTER_REDUCE(sum, false, "Sum of array elements over the given axes.");
SYMNET_REGISTER_OP(sum).add_alias("sum_axis");
SYMNET_REGISTER_REDUCE(mean, true, "Mean of array elements over the given axes.");

#define SYMNET_REGISTER_REDUCE_AXES(NAME, REDUCER, GRAD, DOC)                     \
  SYMNET_REGISTER_OP(NAME)                                                        \
      .describe(DOC)                                                              \
      .set_attr_parser(ParamParser<ReduceParam>)                                  \
      .add_arguments(ParamDocs<ReduceParam>())                                    \
      .add_argument("data", "NDArray-or-Symbol", "The input.")                    \
      .set_attr<FInferShape>("FInferShape", ReduceShape)                          \
      .set_attr<FInferType>("FInferType", ElemwiseType)                           \
      .set_attr<FGradient>("FGradient", ElemwiseGradUseInOut("_backward_" #NAME)) \
      .set_attr<FCompute>("FCompute<cpu>", ReduceAxesCompute<REDUCER>);           \
  SYMNET_REGISTER_OP(_backward_##NAME)                                            \
      .set_num_inputs(3)                                                          \
      .set_attr_parser(ParamParser<ReduceParam>)                                  \
      .add_arguments(ParamDocs<ReduceParam>())                                    \
      .set_attr<TIsBackward>("TIsBackward", true)                                 \
      .set_attr<FCompute>("FCompute<cpu>", ReduceAxesGradCompute<GRAD>);
SYMNET_REDUCE_AXES_OPS(SYMNET_REGISTER_REDUCE_AXES)
SYMNET_REGISTER_OP(max).add_alias("max_axis");
SYMNET_REGISTER_OP(min).add_alias("min_axis");

}  // namespace ops
}  // namespace symnet
