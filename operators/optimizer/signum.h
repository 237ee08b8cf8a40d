/*! \brief Sign-based update parameters and kernels (signsgd_update, signum_update), templated on
 * the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_SIGNUM_H_
#define SYMNET_OPERATORS_OPTIMIZER_SIGNUM_H_

#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"
#include "update_rules.h"

namespace symnet {
namespace ops {

struct SignSGDParam : public dmlc::Parameter<SignSGDParam> {
  float lr, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(SignSGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(
        "Weight decay: the weight is scaled by (1 - lr*wd).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe("Clips the rescaled gradient; negative means no clipping.");
  }
};

struct SignumParam : public dmlc::Parameter<SignumParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient, wd_lh;
  DMLC_DECLARE_PARAMETER(SignumParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momentum average.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(
        "Weight decay, averaged into the momentum with the gradient.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe("Clips the rescaled gradient; negative means no clipping.");
    DMLC_DECLARE_FIELD(wd_lh).set_default(0.0f).describe(
        "Decoupled weight decay (Loshchilov & Hutter): the weight is scaled by (1 - lr*wd_lh).");
  }
};

struct SignumHyper {
  float lr, momentum, wd, rescale, clip, wd_lh;
};

/*!
 * \brief One Signum step (Bernstein et al.): mom = momentum*mom - (1-momentum)*(wd*w + g) with
 *  g = clip(rescale*grad); w = (1 - lr*wd_lh)*w + lr*sign(mom). mom == nullptr: signSGD,
 *  w = (1 - lr*wd)*w - lr*sign(g).
 */
struct SignumKernel {
  template <typename W>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, W* mom, W* out,
                                 SignumHyper h) {
    using A = AccType<W>;
    const A w = Load<A>(weight, i);
    const A g = RescaleClip(Load<A>(grad, i), A(h.rescale), A(h.clip));
    if (mom) {
      const A beta = A(h.momentum), rest = A(1) - A(h.momentum);
      const A m = beta * Load<A>(mom, i) - rest * A(h.wd) * w - rest * g;
      mom[i] = W(m);
      out[i] = W((A(1) - A(h.lr) * A(h.wd_lh)) * w + A(h.lr) * SignOf(m));
    } else {
      out[i] = W((A(1) - A(h.lr) * A(h.wd)) * w - A(h.lr) * SignOf(g));
    }
  }
};

/*! \brief Inputs (weight, grad) or, with momentum, (weight, grad, mom). */
template <bool with_mom, typename xpu = cpu>
void SignumCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  SignumHyper h;
  if constexpr (with_mom) {
    const SignumParam& p = Param<SignumParam>(attrs);
    h = {p.lr, p.momentum, p.wd, p.rescale_grad, p.clip_gradient, p.wd_lh};
  } else {
    const SignSGDParam& p = Param<SignSGDParam>(attrs);
    h = {p.lr, 0.0f, p.wd, p.rescale_grad, p.clip_gradient, 0.0f};
  }
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    Kernel<SignumKernel, xpu>::Launch(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(),
                                      with_mom ? in[2].dptr<W>() : nullptr, out[0].dptr<W>(), h);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_SIGNUM_H_
