/*!
 * \brief SoftmaxActivation (MXNet 1.x, deprecated in favour of softmax): mode 'instance' is a
 *  softmax over all the axes but the first (the data flattened per sample), 'channel' a softmax
 *  over axis 1. Both are views (outer, n, inner) for softmax.h's row kernels.
 */
#ifndef SYMNET_OPERATORS_NN_SOFTMAX_ACTIVATION_H_
#define SYMNET_OPERATORS_NN_SOFTMAX_ACTIVATION_H_

#include <vector>

#include "softmax.h"

namespace symnet {
namespace ops {

enum SoftmaxActivationMode { kSoftmaxInstance = 0, kSoftmaxChannel = 1 };

struct SoftmaxActivationParam : public dmlc::Parameter<SoftmaxActivationParam> {
  int mode;
  DMLC_DECLARE_PARAMETER(SoftmaxActivationParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("instance", kSoftmaxInstance)
        .add_enum("channel", kSoftmaxChannel)
        .set_default(kSoftmaxInstance)
        .describe(
            "'instance': softmax over all axes but the first; 'channel': softmax over axis 1 "
            "(data of at least 3 dims).");
  }
};

/*! \brief The softmax view of `s`. A 1-D input is one instance, as in MXNet. */
inline AxisSplit SoftmaxActivationSplit(const NodeAttrs& attrs, const Shape& s) {
  if (Param<SoftmaxActivationParam>(attrs).mode == kSoftmaxChannel) return SplitAtAxis(s, 1);
  if (s.ndim() == 1) return {1, s[0], 1};
  return {s[0], s.ProdRange(1, s.ndim()), 1};
}

template <typename xpu>
void SoftmaxActivationForward(const NodeAttrs& attrs, const OpContext&,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const AxisSplit sp = SoftmaxActivationSplit(attrs, in[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SoftmaxForward<xpu, false>(in[0].dptr<T>(), out[0].dptr<T>(), sp, 1.0, req[0]);
  });
}

/*! \brief Inputs (dy, y): dx = y (dy - sum(dy y)) over each softmax row. */
template <typename xpu>
void SoftmaxActivationBackward(const NodeAttrs& attrs, const OpContext&,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const AxisSplit sp = SoftmaxActivationSplit(attrs, in[1].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<SoftmaxGradRowKernel<false, Req>, xpu>::LaunchCost(
          sp.outer * sp.inner, sp.n, in[0].dptr<T>(), in[1].dptr<T>(), out[0].dptr<T>(), sp, A(1));
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_SOFTMAX_ACTIVATION_H_
