/*! \brief RMSProp update parameters and kernels (rmsprop_update, rmspropalex_update),
 * templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_RMSPROP_H_
#define SYMNET_OPERATORS_OPTIMIZER_RMSPROP_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"
#include "update_rules.h"

namespace symnet {
namespace ops {

/*! \brief The fields rmsprop_update and rmspropalex_update share, after their decay rates. */
#define SYMNET_RMSPROP_COMMON_FIELDS                                                             \
  DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe(                                       \
      "Added under the square root, keeps the division finite.");                                \
  DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(                                             \
      "Weight decay, added to the rescaled gradient before clipping.");                          \
  DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first."); \
  DMLC_DECLARE_FIELD(clip_gradient)                                                              \
      .set_default(-1.0f)                                                                        \
      .describe("Clips the gradient (wd term included); negative means no clipping.");           \
  DMLC_DECLARE_FIELD(clip_weights)                                                               \
      .set_default(-1.0f)                                                                        \
      .describe("Clips the new weight to [-clip_weights, clip_weights]; negative: no clipping.");

struct RMSPropParam : public dmlc::Parameter<RMSPropParam> {
  float lr, gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe(
        "Decay of the running average of the squared gradient.");
    SYMNET_RMSPROP_COMMON_FIELDS
  }
};

struct RMSPropAlexParam : public dmlc::Parameter<RMSPropAlexParam> {
  float lr, gamma1, gamma2, epsilon, wd, rescale_grad, clip_gradient, clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropAlexParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe(
        "Decay of the running averages of the gradient and of its square.");
    DMLC_DECLARE_FIELD(gamma2).set_default(0.9f).describe("Momentum of the step.");
    SYMNET_RMSPROP_COMMON_FIELDS
  }
};

/*! \brief The hyperparameters a kernel gets (a plain struct: it is copied to the device). */
struct RMSPropHyper {
  float lr, gamma1, gamma2, epsilon, wd, rescale, clip, clip_weights;
};

/*! \brief Tieleman & Hinton: n = gamma1*n + (1-gamma1)*g^2; w -= lr*g/sqrt(n + epsilon). */
struct RMSPropKernel {
  template <typename W>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, W* n, W* out,
                                 RMSPropHyper p) {
    using A = AccType<W>;
    A w = Load<A>(weight, i);
    const A g = ClipAbs(A(p.rescale) * Load<A>(grad, i) + A(p.wd) * w, A(p.clip));
    const A nn = (A(1) - A(p.gamma1)) * g * g + A(p.gamma1) * Load<A>(n, i);
    n[i] = W(nn);
    w -= A(p.lr) * g / std::sqrt(nn + A(p.epsilon));
    out[i] = W(ClipAbs(w, A(p.clip_weights)));
  }
};

/*!
 * \brief Graves' centered form: n and gbar average g^2 and g; the step delta has momentum:
 *  delta = gamma2*delta - lr*g/sqrt(n - gbar^2 + epsilon); w += delta.
 */
struct RMSPropAlexKernel {
  template <typename W>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, W* n, W* gbar, W* delta,
                                 W* out, RMSPropHyper p) {
    using A = AccType<W>;
    A w = Load<A>(weight, i);
    const A g = ClipAbs(A(p.rescale) * Load<A>(grad, i) + A(p.wd) * w, A(p.clip));
    const A nn = (A(1) - A(p.gamma1)) * g * g + A(p.gamma1) * Load<A>(n, i);
    const A gb = (A(1) - A(p.gamma1)) * g + A(p.gamma1) * Load<A>(gbar, i);
    const A d =
        A(p.gamma2) * Load<A>(delta, i) - A(p.lr) * g / std::sqrt(nn - gb * gb + A(p.epsilon));
    n[i] = W(nn);
    gbar[i] = W(gb);
    delta[i] = W(d);
    out[i] = W(ClipAbs(w + d, A(p.clip_weights)));
  }
};

/*! \brief Inputs (weight, grad, n) or, centered, (weight, grad, n, g, delta). */
template <bool centered, typename xpu = cpu>
void RMSPropCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  RMSPropHyper p;
  if constexpr (centered) {
    const RMSPropAlexParam& a = Param<RMSPropAlexParam>(attrs);
    p = {a.lr, a.gamma1,       a.gamma2,        a.epsilon,
         a.wd, a.rescale_grad, a.clip_gradient, a.clip_weights};
  } else {
    const RMSPropParam& a = Param<RMSPropParam>(attrs);
    p = {a.lr, a.gamma1, 0.0f, a.epsilon, a.wd, a.rescale_grad, a.clip_gradient, a.clip_weights};
  }
  const int64_t n = in[0].Size();
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    if constexpr (centered) {
      Kernel<RMSPropAlexKernel, xpu>::Launch(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(),
                                             in[3].dptr<W>(), in[4].dptr<W>(), out[0].dptr<W>(), p);
    } else {
      Kernel<RMSPropKernel, xpu>::Launch(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(),
                                         out[0].dptr<W>(), p);
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_RMSPROP_H_
