/*! \brief SGD update parameters and kernels (sgd_update, sgd_mom_update, nag_mom_update and mp_
 * forms), templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_SGD_H_
#define SYMNET_OPERATORS_OPTIMIZER_SGD_H_

#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"

namespace symnet {
namespace ops {

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe(
        "The decay rate of momentum estimates.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe(
            "Clips the rescaled gradient to [-clip_gradient, clip_gradient]; negative means no "
            "clipping.");
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe("Accepted for MXNet compatibility (only dense arrays exist here).");
  }
};

inline SGDHyper Hyper(const SGDParam& p) {
  return {p.lr, p.wd, p.momentum, p.rescale_grad, p.clip_gradient};
}

/*! \brief Inputs (weight, grad[, mom][, weight32]); output the new weight. nag: Nesterov. */
template <bool with_mom, bool mp, bool nag = false, typename xpu = cpu>
void SGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const SGDHyper h = Hyper(Param<SGDParam>(attrs));
  const int64_t n = in[0].Size();
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    if constexpr (nag) {
      static_assert(with_mom, "Nesterov needs a momentum buffer");
      if constexpr (mp) {
        NAGStep<xpu, W, float>(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<float>(),
                               in[3].dptr<float>(), out[0].dptr<W>(), h);
      } else {
        NAGStep<xpu, W, W>(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(), nullptr,
                           out[0].dptr<W>(), h);
      }
    } else if constexpr (mp) {
      float* mom = with_mom ? in[2].dptr<float>() : nullptr;
      SGDStep<xpu, W, float>(n, in[0].dptr<W>(), in[1].dptr<W>(), mom,
                             in[with_mom ? 3 : 2].dptr<float>(), out[0].dptr<W>(), h);
    } else {
      SGDStep<xpu, W, W>(n, in[0].dptr<W>(), in[1].dptr<W>(), with_mom ? in[2].dptr<W>() : nullptr,
                         nullptr, out[0].dptr<W>(), h);
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_SGD_H_
