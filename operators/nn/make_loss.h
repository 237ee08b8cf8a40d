/*! \brief MakeLoss and make_loss: parameter and gradient kernels, templated on the device. */
#ifndef SYMNET_OPERATORS_NN_MAKE_LOSS_H_
#define SYMNET_OPERATORS_NN_MAKE_LOSS_H_

#include <cstdint>
#include <vector>

#include "../operator_common.h"
#include "../tensor/elemwise_kernels.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum MakeLossNorm { kMakeLossNull, kMakeLossBatch, kMakeLossValid };

struct MakeLossParam : public dmlc::Parameter<MakeLossParam> {
  float grad_scale;
  float valid_thresh;
  int normalization;
  DMLC_DECLARE_PARAMETER(MakeLossParam) {
    DMLC_DECLARE_FIELD(grad_scale)
        .set_default(1.0f)
        .describe("The gradient this loss sends back to its input.");
    DMLC_DECLARE_FIELD(valid_thresh)
        .set_default(0.0f)
        .describe("With normalization 'valid', elements above it count as valid.");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", kMakeLossNull)
        .add_enum("batch", kMakeLossBatch)
        .add_enum("valid", kMakeLossValid)
        .set_default(kMakeLossNull)
        .describe(
            "Divide the gradient by nothing, the batch size, or the number of input elements "
            "above valid_thresh (at least 1).");
  }
};

/*! \brief dx = scale, or scale / max(1, *count) when a count is given. */
template <int req>
struct MakeLossGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, A scale, const unsigned long long* count) {
    A g = scale;
    if (count) g /= static_cast<A>(*count > 0ull ? *count : 1ull);
    AssignReq<req>(&dx[i], g);
  }
};

/*! \brief The number of elements above thresh, where the kernel can read it: a host value on the
 *  CPU, a device scalar on a GPU (defined in make_loss.cu). */
template <typename T>
const unsigned long long* CountAbove(cpu, const T* x, int64_t n, double thresh,
                                     unsigned long long* host_slot, const OpContext&) {
  unsigned long long c = 0;
  for (int64_t i = 0; i < n; ++i) c += static_cast<double>(static_cast<AccType<T>>(x[i])) > thresh;
  *host_slot = c;
  return host_slot;
}
template <typename T>
const unsigned long long* CountAbove(gpu, const T* x, int64_t n, double thresh,
                                     unsigned long long* host_slot, const OpContext& ctx);

/*! \brief Input (y), the forward output (the data itself): only its shape and, with 'valid', its
 *  values matter. The head gradient is ignored, as a loss head's. */
template <typename xpu = cpu>
void MakeLossGradCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const MakeLossParam& p = Param<MakeLossParam>(attrs);
  const TBlob& y = in[0];
  double scale = static_cast<double>(p.grad_scale) * ctx.loss_scale;
  if (p.normalization == kMakeLossBatch && y.shape_.ndim() > 0 && y.shape_[0] > 0)
    scale /= static_cast<double>(y.shape_[0]);
  unsigned long long host_count = 0;
  SYMNET_FLOAT_TYPE_SWITCH(y.dtype_, T, {
    using A = AccType<T>;
    const unsigned long long* count =
        p.normalization == kMakeLossValid
            ? CountAbove<T>(xpu(), y.dptr<T>(), y.Size(), p.valid_thresh, &host_count, ctx)
            : nullptr;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<MakeLossGradKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(),
                                                   static_cast<A>(scale), count);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_MAKE_LOSS_H_
