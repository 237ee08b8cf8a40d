/*! \brief AdamW update parameters and kernel (_adamw_update, _mp_adamw_update), templated on the
 * device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_ADAMW_H_
#define SYMNET_OPERATORS_OPTIMIZER_ADAMW_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"
#include "update_rules.h"

namespace symnet {
namespace ops {

struct AdamWParam : public dmlc::Parameter<AdamWParam> {
  float lr, beta1, beta2, epsilon, wd, eta, clip_gradient;
  DMLC_DECLARE_PARAMETER(AdamWParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate (multiplies the Adam step, not the decay).");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay rate of the first moment.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay rate of the second moment.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Keeps the division finite.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(
        "Decoupled weight decay: eta*wd*weight is subtracted, outside the moments.");
    DMLC_DECLARE_FIELD(eta).describe("Schedule multiplier of the whole step.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe("Clips the rescaled gradient; negative means no clipping.");
  }
};

struct AdamWHyper {
  float lr, beta1, beta2, epsilon, wd, eta, clip;
};

/*!
 * \brief One AdamW step. The rescale factor is read on the device (S: its dtype); when it is
 *  0, infinite or NaN (a loss-scaling overflow), nothing changes: out gets the weight.
 *  w32 == nullptr: the weight itself is the master copy.
 */
struct AdamWKernel {
  template <typename W, typename M, typename S>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, M* mean, M* var, M* w32,
                                 const S* rescale, W* out, AdamWHyper h) {
    using A = AccType<W>;
    const A r = static_cast<A>(static_cast<AccType<S>>(rescale[0]));
    if (r == A(0) || !(r - r == A(0))) {  // r - r is NaN for an infinite or NaN r
      out[i] = weight[i];
      return;
    }
    A w = w32 ? static_cast<A>(w32[i]) : Load<A>(weight, i);
    const A g = RescaleClip(Load<A>(grad, i), r, A(h.clip));
    const A m = A(h.beta1) * static_cast<A>(mean[i]) + (A(1) - A(h.beta1)) * g;
    const A v = A(h.beta2) * static_cast<A>(var[i]) + (A(1) - A(h.beta2)) * g * g;
    mean[i] = M(m);
    var[i] = M(v);
    w -= A(h.eta) * (A(h.lr) * m / (std::sqrt(v) + A(h.epsilon)) + A(h.wd) * w);
    if (w32) w32[i] = M(w);
    out[i] = W(w);
  }
};

/*! \brief Inputs (weight, grad, mean, var[, weight32], rescale_grad); output the new weight. */
template <bool mp, typename xpu = cpu>
void AdamWCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const AdamWParam& p = Param<AdamWParam>(attrs);
  const AdamWHyper h{p.lr, p.beta1, p.beta2, p.epsilon, p.wd, p.eta, p.clip_gradient};
  const TBlob& rescale = in[mp ? 5 : 4];
  const int64_t n = in[0].Size();
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    using M = std::conditional_t<mp, float, W>;
    M* w32 = nullptr;
    if constexpr (mp) w32 = in[4].dptr<float>();
    // the type rule allows a float32 rescale factor or one of the weight's dtype
    if (rescale.dtype_ == DType::kFloat32) {
      Kernel<AdamWKernel, xpu>::Launch(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<M>(),
                                       in[3].dptr<M>(), w32, rescale.dptr<float>(),
                                       out[0].dptr<W>(), h);
    } else {
      Kernel<AdamWKernel, xpu>::Launch(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<M>(),
                                       in[3].dptr<M>(), w32, rescale.dptr<W>(), out[0].dptr<W>(),
                                       h);
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_ADAMW_H_
