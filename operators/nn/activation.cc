/*! \brief Activation (relu, sigmoid, tanh, softrelu, softsign); the gradient uses only the output.
 */
#include "activation.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ActivationParam);

namespace {}  // namespace

SYMNET_REGISTER_OP(Activation)
    .describe(
        "Applies an activation function element-wise: relu, sigmoid, tanh, softrelu "
        "(log(1+exp(x))) or softsign (x/(1+|x|)).")
    .set_attr_parser(ParamParser<ActivationParam>)
    .add_arguments(ParamDocs<ActivationParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseOut("_backward_Activation"))
    .set_attr<FCompute>("FCompute<cpu>", ActivationCompute<>);

SYMNET_REGISTER_OP(_backward_Activation)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<ActivationParam>)
    .add_arguments(ParamDocs<ActivationParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", ActivationGradCompute<>);

}  // namespace ops
}  // namespace symnet
