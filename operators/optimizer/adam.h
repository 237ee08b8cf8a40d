/*! \brief Adam update parameters and kernels (adam_update, mp_adam_update), templated on the
 * device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_ADAM_H_
#define SYMNET_OPERATORS_OPTIMIZER_ADAM_H_

#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"

namespace symnet {
namespace ops {

struct AdamParam : public dmlc::Parameter<AdamParam> {
  float lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdamParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay rate of the first moment.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay rate of the second moment.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Keeps the division finite.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe("Clips the rescaled gradient; negative means no clipping.");
    DMLC_DECLARE_FIELD(lazy_update).set_default(true).describe("Accepted for MXNet compatibility.");
  }
};

/*! \brief Inputs (weight, grad, mean, var[, weight32]); output the new weight. */
template <bool mp, typename xpu = cpu>
void AdamCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const AdamParam& p = Param<AdamParam>(attrs);
  const AdamHyper h{p.lr, p.beta1, p.beta2, p.epsilon, p.wd, p.rescale_grad, p.clip_gradient};
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    if constexpr (mp) {
      AdamStep<xpu, W, float>(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<float>(),
                              in[3].dptr<float>(), in[4].dptr<float>(), out[0].dptr<W>(), h);
    } else {
      AdamStep<xpu, W, W>(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(),
                          in[3].dptr<W>(), nullptr, out[0].dptr<W>(), h);
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_ADAM_H_
