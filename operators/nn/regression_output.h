/*!
 * \brief The regression output heads (LinearRegressionOutput, LogisticRegressionOutput,
 *  MAERegressionOutput): parameter and gradient kernel, templated on the device.
 */
#ifndef SYMNET_OPERATORS_NN_REGRESSION_OUTPUT_H_
#define SYMNET_OPERATORS_NN_REGRESSION_OUTPUT_H_

#include <vector>

#include "../operator_common.h"
#include "../tensor/elemwise_kernels.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct RegressionOutputParam : public dmlc::Parameter<RegressionOutputParam> {
  float grad_scale;
  DMLC_DECLARE_PARAMETER(RegressionOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient.");
  }
};

/*! \brief The per-element loss gradient of the heads as a function of (output y, label). The
 *  squared loss on y and the cross entropy on y = sigmoid(x) both give y - label. */
struct RegressionResidual {
  template <typename A>
  SYMNET_XINLINE static A Map(A y, A label) {
    return y - label;
  }
};
/*! \brief The absolute loss: sign(y - label), where a tie counts as -1 (as MXNet does). */
struct RegressionSign {
  template <typename A>
  SYMNET_XINLINE static A Map(A y, A label) {
    return y - label > A(0) ? A(1) : A(-1);
  }
};

template <typename GRAD, int req>
struct RegressionGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, const T* y, const T* label, T* dx, A scale) {
    AssignReq<req>(&dx[i], GRAD::Map(static_cast<A>(y[i]), static_cast<A>(label[i])) * scale);
  }
};

/*! \brief Inputs (label, y); dx = GRAD(y, label) * grad_scale / (outputs per sample). The head
 *  gradient is ignored (a loss head); the label, of the data's size, gets a zero gradient. */
template <typename GRAD, typename xpu = cpu>
void RegressionGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const TBlob &label = in[0], &y = in[1];
  const double per_sample = static_cast<double>(label.Size()) / label.shape_[0];
  SYMNET_FLOAT_TYPE_SWITCH(y.dtype_, T, {
    using A = AccType<T>;
    const A scale = static_cast<A>(Param<RegressionOutputParam>(attrs).grad_scale * ctx.loss_scale /
                                   per_sample);
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<RegressionGradKernel<GRAD, Req>, xpu>::Launch(y.Size(), y.dptr<T>(), label.dptr<T>(),
                                                           out[0].dptr<T>(), scale);
    });
  });
  ZerosCompute(attrs, ctx, {}, {req[1]}, {out[1]});  // the label gets no gradient
}

/*! \brief The heads as X(NAME, forward FCompute<cpu>, GRAD, doc). */
#define SYMNET_REGRESSION_OUTPUTS(X)                                                            \
  X(LinearRegressionOutput, CopyCompute, RegressionResidual,                                    \
    "Identity in forward; in backward the gradient of 0.5*(y - label)^2 averaged over the "     \
    "outputs of each sample, times grad_scale.")                                                \
  X(LogisticRegressionOutput, UnaryCompute<mathf::sigmoid>, RegressionResidual,                 \
    "y = sigmoid(x) in forward; in backward the gradient of the binary cross entropy of y and " \
    "label (y - label) averaged over the outputs of each sample, times grad_scale.")            \
  X(MAERegressionOutput, CopyCompute, RegressionSign,                                           \
    "Identity in forward; in backward the gradient of |y - label| (its sign, -1 at a tie) "     \
    "averaged over the outputs of each sample, times grad_scale.")

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_REGRESSION_OUTPUT_H_
