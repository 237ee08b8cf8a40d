/*! \brief FTML update parameters and kernel (ftml_update, MXNet's), templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_FTML_H_
#define SYMNET_OPERATORS_OPTIMIZER_FTML_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"
#include "update_rules.h"

namespace symnet {
namespace ops {

struct FtmlParam : public dmlc::Parameter<FtmlParam> {
  float lr, beta1, beta2, wd, rescale_grad, clip_grad;
  double epsilon;
  int t;
  DMLC_DECLARE_PARAMETER(FtmlParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.6f).describe("Decay of z (generally about 0.5).");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of v (generally close to 1).");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8).describe(
        "Added to sqrt(v) against division by 0.");
    DMLC_DECLARE_FIELD(t).describe("The update's number (1 for the first), for the bias terms.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay, added to the gradient.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_grad).set_default(-1.0f).describe(
        "Clips rescale_grad*grad + wd*weight to [-clip_grad, clip_grad]; negative: off.");
  }
};

struct FtmlHyper {
  float lr, beta1, beta2, wd, rescale, clip;
  double eps;
  int t;
};

/*!
 * \brief One FTML step (Zheng and Kwok, 2017, as MXNet 1.9.1 computes it): with
 *  g = clip(rescale*grad + wd*w), v = beta2*v + (1-beta2)*g^2,
 *  d_t = (1 - beta1^t)/lr * (sqrt(v/(1 - beta2^t)) + eps),
 *  z = beta1*z + (1-beta1)*g - (d_t - beta1*d)*w, d = d_t, and the new weight -z/d_t.
 */
struct FtmlKernel {
  template <typename W>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, W* d, W* v, W* z,
                                 W* out, FtmlHyper h) {
    using A = AccType<W>;
    const A w = Load<A>(weight, i);
    A g = A(h.rescale) * Load<A>(grad, i) + A(h.wd) * w;
    if (h.clip >= 0.0f) g = g > A(h.clip) ? A(h.clip) : (g < -A(h.clip) ? -A(h.clip) : g);
    const A vv = A(h.beta2) * Load<A>(v, i) + (A(1) - A(h.beta2)) * g * g;
    const A b1t = std::pow(A(h.beta1), A(h.t)), b2t = std::pow(A(h.beta2), A(h.t));
    const A dt = (A(1) - b1t) / A(h.lr) * (std::sqrt(vv / (A(1) - b2t)) + A(h.eps));
    const A zz = A(h.beta1) * Load<A>(z, i) + (A(1) - A(h.beta1)) * g -
                 (dt - A(h.beta1) * Load<A>(d, i)) * w;
    v[i] = W(vv);
    z[i] = W(zz);
    d[i] = W(dt);
    out[i] = W(-zz / dt);
  }
};

/*! \brief Inputs (weight, grad, d, v, z); output the new weight. */
template <typename xpu = cpu>
void FtmlCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const FtmlParam& p = Param<FtmlParam>(attrs);
  const FtmlHyper h{p.lr, p.beta1, p.beta2, p.wd, p.rescale_grad, p.clip_grad, p.epsilon, p.t};
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    Kernel<FtmlKernel, xpu>::Launch(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(),
                                    in[3].dptr<W>(), in[4].dptr<W>(), out[0].dptr<W>(), h);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_FTML_H_
