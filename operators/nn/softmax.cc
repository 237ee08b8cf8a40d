/*! \brief softmax, log_softmax and softmin along an axis (temperature optional), and their
 *  gradients. */
#include "softmax.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SoftmaxParam);

#define SYMNET_REGISTER_SOFTMAX(NAME, IS_LOG, IS_MIN, DOC)                       \
  SYMNET_REGISTER_OP(NAME)                                                       \
      .describe(DOC)                                                             \
      .set_attr_parser(ParamParser<SoftmaxParam>)                                \
      .add_arguments(ParamDocs<SoftmaxParam>())                                  \
      .add_argument("data", "NDArray-or-Symbol", "The input array.")             \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                       \
      .set_attr<FInferType>("FInferType", ElemwiseType)                          \
      .set_attr<FGradient>("FGradient", ElemwiseGradUseOut("_backward_" #NAME))  \
      .set_attr<FCompute>("FCompute<cpu>", SoftmaxCompute<IS_LOG, cpu, IS_MIN>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                           \
      .set_num_inputs(2)                                                         \
      .set_attr_parser(ParamParser<SoftmaxParam>)                                \
      .add_arguments(ParamDocs<SoftmaxParam>())                                  \
      .set_attr<TIsBackward>("TIsBackward", true)                                \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                \
      .set_attr<FCompute>("FCompute<cpu>", SoftmaxGradCompute<IS_LOG, cpu, IS_MIN>)

SYMNET_REGISTER_SOFTMAX(softmax, false, false, "Softmax along an axis: exp(x/t) / sum(exp(x/t)).");
SYMNET_REGISTER_SOFTMAX(log_softmax, true, false, "Log of softmax along an axis, computed stably.");
SYMNET_REGISTER_SOFTMAX(softmin, false, true,
                        "Softmin along an axis: exp(-x/t) / sum(exp(-x/t)), softmax of -x.");

}  // namespace ops
}  // namespace symnet
