/*! \brief FTRL-Proximal update parameters and kernel (ftrl_update), templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_FTRL_H_
#define SYMNET_OPERATORS_OPTIMIZER_FTRL_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"
#include "update_rules.h"

namespace symnet {
namespace ops {

struct FtrlParam : public dmlc::Parameter<FtrlParam> {
  float lr, lamda1, beta, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(FtrlParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(lamda1).set_default(0.01f).describe("L1 regularization strength.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0f).describe(
        "Added to sqrt(n) in the per-coordinate learning rate.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("L2 regularization strength.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe("Clips the rescaled gradient; negative means no clipping.");
  }
};

struct FtrlHyper {
  float lr, lamda1, beta, wd, rescale, clip;
};

/*!
 * \brief One FTRL-Proximal step (McMahan et al.): with g = clip(rescale*grad),
 *  z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr; n += g^2;
 *  w = |z| > lamda1 ? (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) : 0.
 */
struct FtrlKernel {
  template <typename W>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, W* z, W* n, W* out,
                                 FtrlHyper h) {
    using A = AccType<W>;
    const A w = Load<A>(weight, i);
    const A g = RescaleClip(Load<A>(grad, i), A(h.rescale), A(h.clip));
    const A n0 = Load<A>(n, i);
    const A n1 = n0 + g * g;
    const A zz = Load<A>(z, i) + g - (std::sqrt(n1) - std::sqrt(n0)) * w / A(h.lr);
    z[i] = W(zz);
    n[i] = W(n1);
    const A mag = zz > A(0) ? zz : -zz;
    out[i] =
        mag > A(h.lamda1)
            ? W((SignOf(zz) * A(h.lamda1) - zz) / ((A(h.beta) + std::sqrt(n1)) / A(h.lr) + A(h.wd)))
            : W(A(0));
  }
};

/*! \brief Inputs (weight, grad, z, n); output the new weight. */
template <typename xpu = cpu>
void FtrlCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const FtrlParam& p = Param<FtrlParam>(attrs);
  const FtrlHyper h{p.lr, p.lamda1, p.beta, p.wd, p.rescale_grad, p.clip_gradient};
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    Kernel<FtrlKernel, xpu>::Launch(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(),
                                    in[3].dptr<W>(), out[0].dptr<W>(), h);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_FTRL_H_
