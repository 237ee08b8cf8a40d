/*! \brief LinearRegressionOutput's parameter and gradient kernel, templated on the device. */
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

template <int req>
struct RegressionGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, const T* y, const T* label, T* dx, A scale) {
    AssignReq<req>(&dx[i], (static_cast<A>(y[i]) - static_cast<A>(label[i])) * scale);
  }
};

/*! \brief Inputs (label, y); dx = (y - label) * grad_scale / (outputs per sample). */
template <typename xpu = cpu>
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
      Kernel<RegressionGradKernel<Req>, xpu>::Launch(y.Size(), y.dptr<T>(), label.dptr<T>(),
                                                     out[0].dptr<T>(), scale);
    });
  });
  ZerosCompute(attrs, ctx, {}, {req[1]}, {out[1]});  // the label gets no gradient
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_REGRESSION_OUTPUT_H_
