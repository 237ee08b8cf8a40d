/*! \brief Dropout's parameter and kernels, templated on the device. The mask comes from the
 *  counter-based streams of symnet/random.h, so the CPU and a GPU draw the same mask. */
#ifndef SYMNET_OPERATORS_NN_DROPOUT_H_
#define SYMNET_OPERATORS_NN_DROPOUT_H_

#include <vector>

#include "../operator_common.h"
#include "../tensor/broadcast_util.h"
#include "src/device/kernel_launch.h"
#include "symnet/random.h"

namespace symnet {
namespace ops {

enum DropoutMode { kTraining, kAlways };

struct DropoutParam : public dmlc::Parameter<DropoutParam> {
  float p;
  int mode;
  Shape axes;
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(DropoutParam) {
    DMLC_DECLARE_FIELD(p)
        .set_default(0.5f)
        .set_range(0.0f, 1.0f)
        .describe("Fraction of the input that gets dropped out during training.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("training", kTraining)
        .add_enum("always", kAlways)
        .set_default(kTraining)
        .describe("Whether to drop only in training or always.");
    DMLC_DECLARE_FIELD(axes).set_default(Shape()).describe("Axes along which the mask is shared.");
    DMLC_DECLARE_FIELD(cudnn_off)
        .set_default(dmlc::optional<bool>())
        .describe("Accepted for MXNet compatibility.");
  }
};

/*! \brief mask[i] = keep (1/(1-p)) or 0, drawn at the mask's (possibly shared) position. */
struct DropoutMaskKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* mask, uint64_t key, BroadcastMap map, float p,
                                 A keep) {
    mask[i] = T(UniformAt(key, static_cast<uint64_t>(map.InOffset(i))) >= p ? keep : A(0));
  }
};

struct FillMaskKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* mask, A v) {
    mask[i] = T(v);
  }
};

template <int req>
struct ApplyMaskKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* x, const T* mask, T* y) {
    using A = AccType<T>;
    AssignReq<req>(&y[i], static_cast<A>(x[i]) * static_cast<A>(mask[i]));
  }
};

template <typename xpu = cpu>
void DropoutCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DropoutParam& p = Param<DropoutParam>(attrs);
  const bool active = ctx.is_train || p.mode == kAlways;
  const TBlob &xb = in[0], &yb = out[0], &mb = out[1];
  const int64_t n = xb.Size();
  SYMNET_FLOAT_TYPE_SWITCH(xb.dtype_, T, {
    using A = AccType<T>;
    if (!active || p.p == 0.0f) {
      Kernel<FillMaskKernel, xpu>::Launch(n, mb.dptr<T>(), A(1));
    } else if (p.p >= 1.0f) {
      Kernel<FillMaskKernel, xpu>::Launch(n, mb.dptr<T>(), A(0));
    } else {
      // the mask varies only over axes not in `axes`: draw it for the reduced shape, broadcast
      Shape reduced = xb.shape_;
      if (p.axes.ndim_known())
        for (auto a : p.axes) reduced[a < 0 ? a + reduced.ndim() : a] = 1;
      Kernel<DropoutMaskKernel, xpu>::Launch(n, mb.dptr<T>(), NextRandomStream(),
                                             BroadcastMap(reduced, xb.shape_), p.p,
                                             static_cast<A>(1.0 / (1.0 - p.p)));
    }
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ApplyMaskKernel<Req>, xpu>::Launch(n, xb.dptr<T>(),
                                                static_cast<const T*>(mb.dptr<T>()), yb.dptr<T>());
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_DROPOUT_H_
