/*! \brief Activation's parameter and kernels, templated on the device. */
#ifndef SYMNET_OPERATORS_NN_ACTIVATION_H_
#define SYMNET_OPERATORS_NN_ACTIVATION_H_

#include <vector>

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
template <typename xpu = cpu>
void ActivationCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  switch (Param<ActivationParam>(attrs).act_type) {
    case kReLU:
      return UnaryCompute<mathf::relu, xpu>(attrs, ctx, in, req, out);
    case kSigmoid:
      return UnaryCompute<mathf::sigmoid, xpu>(attrs, ctx, in, req, out);
    case kTanh:
      return UnaryCompute<mathf::tanh, xpu>(attrs, ctx, in, req, out);
    case kSoftReLU:
      return UnaryCompute<mathf::softrelu, xpu>(attrs, ctx, in, req, out);
    case kSoftSign:
      return UnaryCompute<mathf::softsign, xpu>(attrs, ctx, in, req, out);
  }
}

/*! \brief Inputs (dy, y). */
template <typename xpu = cpu>
void ActivationGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  switch (Param<ActivationParam>(attrs).act_type) {
    case kReLU:
      return UnaryGradCompute<mathf::relu_grad, xpu>(attrs, ctx, in, req, out);
    case kSigmoid:
      return UnaryGradCompute<mathf::sigmoid_grad, xpu>(attrs, ctx, in, req, out);
    case kTanh:
      return UnaryGradCompute<mathf::tanh_grad, xpu>(attrs, ctx, in, req, out);
    case kSoftReLU:
      return UnaryGradCompute<mathf::softrelu_grad, xpu>(attrs, ctx, in, req, out);
    case kSoftSign:
      return UnaryGradCompute<mathf::softsign_grad, xpu>(attrs, ctx, in, req, out);
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_ACTIVATION_H_
