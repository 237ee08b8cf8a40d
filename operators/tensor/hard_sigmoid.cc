/*! \brief hard_sigmoid, a piecewise-linear sigmoid, and its gradient. */
#include "hard_sigmoid.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(HardSigmoidParam);

SYMNET_REGISTER_OP(hard_sigmoid)
    .describe("Hard sigmoid: y = max(0, min(1, alpha * x + beta)).")
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ParamDocs<HardSigmoidParam>())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_hard_sigmoid"))
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidCompute<>);

SYMNET_REGISTER_OP(_backward_hard_sigmoid)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .add_arguments(ParamDocs<HardSigmoidParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidGradCompute<>);

}  // namespace ops
}  // namespace symnet
