/*! \brief LAMB update parameters and kernels (lamb_update_phase1/2 and their mp_ forms),
 * templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_LAMB_H_
#define SYMNET_OPERATORS_OPTIMIZER_LAMB_H_

#include <cmath>
#include <type_traits>
#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"
#include "update_rules.h"

namespace symnet {
namespace ops {

struct LambPhase1Param : public dmlc::Parameter<LambPhase1Param> {
  float beta1, beta2, epsilon;
  int t;
  bool bias_correction;
  float wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(LambPhase1Param) {
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay rate of the first moment.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay rate of the second moment.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-6f).describe("Keeps the division finite.");
    DMLC_DECLARE_FIELD(t).describe(
        "The step number (1 for the first update), for bias correction.");
    DMLC_DECLARE_FIELD(bias_correction)
        .set_default(true)
        .describe("Divide the moments by (1 - beta^t) before use.");
    DMLC_DECLARE_FIELD(wd).describe("Weight decay, added to the direction: g += wd*weight.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe("Clips the rescaled gradient; negative means no clipping.");
  }
};

struct LambPhase2Param : public dmlc::Parameter<LambPhase2Param> {
  float lr, lower_bound, upper_bound;
  DMLC_DECLARE_PARAMETER(LambPhase2Param) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(lower_bound)
        .set_default(-1.0f)
        .describe("r1 is raised to at least this; negative: no lower limit.");
    DMLC_DECLARE_FIELD(upper_bound)
        .set_default(-1.0f)
        .describe("r1 is lowered to at most this; negative: no upper limit.");
  }
};

struct LambPhase1Hyper {
  float beta1, beta2, epsilon, wd, rescale, clip;
  float correction1, correction2;  // 1 - beta^t, or 1 without bias correction
};

struct LambPhase2Hyper {
  float lr, lower_bound, upper_bound;
};

/*!
 * \brief Phase 1: the moments and the direction. With g = clip(rescale*grad):
 *  mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2;
 *  out = (mean/c1) / (sqrt(var/c2) + epsilon) + wd*w. w32 == nullptr: the weight is the master.
 */
struct LambPhase1Kernel {
  template <typename W, typename M>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, M* mean, M* var,
                                 const M* w32, M* out, LambPhase1Hyper h) {
    using A = AccType<W>;
    const A w = w32 ? static_cast<A>(w32[i]) : Load<A>(weight, i);
    const A g = RescaleClip(Load<A>(grad, i), A(h.rescale), A(h.clip));
    const A m = A(h.beta1) * static_cast<A>(mean[i]) + (A(1) - A(h.beta1)) * g;
    const A v = A(h.beta2) * static_cast<A>(var[i]) + (A(1) - A(h.beta2)) * g * g;
    mean[i] = M(m);
    var[i] = M(v);
    out[i] =
        M((m / A(h.correction1)) / (std::sqrt(v / A(h.correction2)) + A(h.epsilon)) + A(h.wd) * w);
  }
};

/*!
 * \brief Phase 2: the trust-ratio step. r1 (the weight's norm) is bounded to
 *  [lower_bound, upper_bound] (each when >= 0); w -= lr * (r1/r2) * g, or lr * g when r1 or r2
 *  is 0. r1 and r2 are one-element arrays of type S, read on the device.
 */
struct LambPhase2Kernel {
  template <typename W, typename M, typename S>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const M* g, const S* r1p, const S* r2p,
                                 M* w32, W* out, LambPhase2Hyper p) {
    using A = AccType<W>;
    A r1 = static_cast<A>(static_cast<AccType<S>>(r1p[0]));
    const A r2 = static_cast<A>(static_cast<AccType<S>>(r2p[0]));
    if (p.lower_bound >= 0.0f && r1 < A(p.lower_bound)) r1 = A(p.lower_bound);
    if (p.upper_bound >= 0.0f && r1 > A(p.upper_bound)) r1 = A(p.upper_bound);
    const A lr = (r1 == A(0) || r2 == A(0)) ? A(p.lr) : A(p.lr) * r1 / r2;
    A w = w32 ? static_cast<A>(w32[i]) : Load<A>(weight, i);
    w -= lr * static_cast<A>(g[i]);
    if (w32) w32[i] = M(w);
    out[i] = W(w);
  }
};

/*! \brief Inputs (weight, grad, mean, var[, weight32]); output the direction g. */
template <bool mp, typename xpu = cpu>
void LambPhase1Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const LambPhase1Param& p = Param<LambPhase1Param>(attrs);
  LambPhase1Hyper h{p.beta1, p.beta2, p.epsilon, p.wd, p.rescale_grad, p.clip_gradient, 1.0f, 1.0f};
  if (p.bias_correction) {
    h.correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(p.beta1), p.t));
    h.correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(p.beta2), p.t));
  }
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    using M = std::conditional_t<mp, float, W>;
    const M* w32 = nullptr;
    if constexpr (mp) w32 = in[4].dptr<float>();
    Kernel<LambPhase1Kernel, xpu>::Launch(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(),
                                          in[2].dptr<M>(), in[3].dptr<M>(), w32, out[0].dptr<M>(),
                                          h);
  });
}

/*! \brief Inputs (weight, g, r1, r2[, weight32]); output the new weight. */
template <bool mp, typename xpu = cpu>
void LambPhase2Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const LambPhase2Param& param = Param<LambPhase2Param>(attrs);
  const LambPhase2Hyper p{param.lr, param.lower_bound, param.upper_bound};
  const int64_t n = in[0].Size();
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    using M = std::conditional_t<mp, float, W>;
    M* w32 = nullptr;
    if constexpr (mp) w32 = in[4].dptr<float>();
    // r1 and r2 share a dtype: float32 or the weight's (the type rule allows both)
    SYMNET_CHECK(in[2].dtype_ == in[3].dtype_)
        << "lamb_update_phase2: r1 is " << in[2].dtype_ << " but r2 is " << in[3].dtype_;
    if (in[2].dtype_ == DType::kFloat32) {
      Kernel<LambPhase2Kernel, xpu>::Launch(n, in[0].dptr<W>(), in[1].dptr<M>(),
                                            in[2].dptr<float>(), in[3].dptr<float>(), w32,
                                            out[0].dptr<W>(), p);
    } else {
      Kernel<LambPhase2Kernel, xpu>::Launch(n, in[0].dptr<W>(), in[1].dptr<M>(), in[2].dptr<W>(),
                                            in[3].dptr<W>(), w32, out[0].dptr<W>(), p);
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_LAMB_H_
