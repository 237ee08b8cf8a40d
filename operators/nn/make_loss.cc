/*!
 * \brief MakeLoss and make_loss: turn any expression into a loss head. The forward is the
 *  identity; the backward ignores the head gradient and sends a constant (grad_scale, optionally
 *  normalized) to the input, the gradient of sum(loss).
 */
#include "make_loss.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(MakeLossParam);

namespace {

/*! \brief The backward reads the output (equal to the data) and MakeLoss's parameters. */
std::vector<NodeEntry> MakeLossGrad(const NodePtr& n, const std::vector<NodeEntry>&) {
  return MakeGradNode("_backward_MakeLoss", n, {NodeEntry{n, 0, 0}}, ParamsOf(n));
}

/*! \brief make_loss has no parameters: the keys it was given (MXNet ignores them, grad_scale
 *  included) do not reach the backward, which keeps MakeLoss's defaults. */
std::vector<NodeEntry> MakeLossLowerGrad(const NodePtr& n, const std::vector<NodeEntry>&) {
  return MakeGradNode("_backward_MakeLoss", n, {NodeEntry{n, 0, 0}});
}

}  // namespace

SYMNET_REGISTER_OP(MakeLoss)
    .describe(
        "Makes a loss head of any expression: identity in forward; in backward the input's "
        "gradient is grad_scale (divided by the batch size or the number of elements above "
        "valid_thresh, by normalization), whatever the head gradient.")
    .set_attr_parser(ParamParser<MakeLossParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_arguments(ParamDocs<MakeLossParam>())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<TIsLoss>("TIsLoss", true)
    .set_attr<FGradient>("FGradient", MakeLossGrad)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(make_loss)
    .describe(
        "Makes a loss head of any expression: identity in forward; in backward the input's "
        "gradient is 1, whatever the head gradient.")
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) { return std::vector<std::string>{"loss"}; })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<TIsLoss>("TIsLoss", true)
    .set_attr<FGradient>("FGradient", MakeLossLowerGrad)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(_backward_MakeLoss)
    .set_num_inputs(1)
    .set_attr_parser(ParamParser<MakeLossParam>)
    .add_arguments(ParamDocs<MakeLossParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", MakeLossGradCompute<>);

}  // namespace ops
}  // namespace symnet
