/*! \brief Activation (relu, sigmoid, tanh, softrelu, softsign); the gradient uses only the output. */
#include "../tensor/elemwise_kernels.h"

namespace symnet {
namespace ops {

enum ActType { kReLU, kSigmoid, kTanh, kSoftReLU, kSoftSign };

struct ActivationParam : public dmlc::Parameter<ActivationParam> {
  int act_type;
  DMLC_DECLARE_PARAMETER(ActivationParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", kReLU)
        .add_enum("sigmoid", kSigmoid)
        .add_enum("tanh", kTanh)
        .add_enum("softrelu", kSoftReLU)
        .add_enum("softsign", kSoftSign)
        .describe("Activation function to apply.");
  }
};
DMLC_REGISTER_PARAMETER(ActivationParam);

namespace {

void ActivationCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  switch (Param<ActivationParam>(attrs).act_type) {
    case kReLU: return UnaryCompute<mathf::relu>(attrs, ctx, in, req, out);
    case kSigmoid: return UnaryCompute<mathf::sigmoid>(attrs, ctx, in, req, out);
    case kTanh: return UnaryCompute<mathf::tanh>(attrs, ctx, in, req, out);
    case kSoftReLU: return UnaryCompute<mathf::softrelu>(attrs, ctx, in, req, out);
    case kSoftSign: return UnaryCompute<mathf::softsign>(attrs, ctx, in, req, out);
  }
}

/*! \brief Inputs (dy, y). */
void ActivationGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  switch (Param<ActivationParam>(attrs).act_type) {
    case kReLU: return UnaryGradCompute<mathf::relu_grad>(attrs, ctx, in, req, out);
    case kSigmoid: return UnaryGradCompute<mathf::sigmoid_grad>(attrs, ctx, in, req, out);
    case kTanh: return UnaryGradCompute<mathf::tanh_grad>(attrs, ctx, in, req, out);
    case kSoftReLU: return UnaryGradCompute<mathf::softrelu_grad>(attrs, ctx, in, req, out);
    case kSoftSign: return UnaryGradCompute<mathf::softsign_grad>(attrs, ctx, in, req, out);
  }
}

}  // namespace

SYMNET_REGISTER_OP(Activation)
    .describe("Applies an activation function element-wise: relu, sigmoid, tanh, softrelu "
              "(log(1+exp(x))) or softsign (x/(1+|x|)).")
    .set_attr_parser(ParamParser<ActivationParam>)
    .add_arguments(ParamDocs<ActivationParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseOut("_backward_Activation"))
    .set_attr<FCompute>("FCompute<cpu>", ActivationCompute);

SYMNET_REGISTER_OP(_backward_Activation)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<ActivationParam>)
    .add_arguments(ParamDocs<ActivationParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", ActivationGradCompute);

}  // namespace ops
}  // namespace symnet
