/*! \brief sum and mean over axes (axis, keepdims, exclude), and their gradients. */
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
SYMNET_REGISTER_REDUCE(mean, true, "Mean of array elements over the given axes.");

}  // namespace ops
}  // namespace symnet
