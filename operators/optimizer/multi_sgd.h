/*! \brief Fused multi-weight SGD update parameters and kernels, templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_MULTI_SGD_H_
#define SYMNET_OPERATORS_OPTIMIZER_MULTI_SGD_H_

#include <vector>

#include "../operator_common.h"
#include "update_kernels.h"

namespace symnet {
namespace ops {

struct MultiSGDParam : public dmlc::Parameter<MultiSGDParam> {
  FloatTuple lrs, wds;
  float momentum;
  float rescale_grad;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiSGDParam) {
    DMLC_DECLARE_FIELD(lrs).describe("Learning rates, one per weight.");
    DMLC_DECLARE_FIELD(wds).describe("Weight decays, one per weight.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Momentum.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradients first.");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(
        "Clips the rescaled gradients to [-clip_gradient, clip_gradient]; negative: no clipping.");
    DMLC_DECLARE_FIELD(num_weights).set_default(1).set_lower_bound(1).describe("Number of weights.");
  }
};


template <bool with_mom, bool mp>
constexpr int Stride() {
  return 2 + (with_mom ? 1 : 0) + (mp ? 1 : 0);
}

template <bool with_mom, bool mp, typename xpu = cpu>
void MultiSGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiSGDParam& p = Param<MultiSGDParam>(attrs);
  constexpr int k = Stride<with_mom, mp>();
  SYMNET_CHECK(static_cast<int>(p.lrs.values.size()) == p.num_weights &&
               static_cast<int>(p.wds.values.size()) == p.num_weights)
      << "lrs and wds need one value per weight (" << p.num_weights << ")";
  for (int w = 0; w < p.num_weights; ++w) {
    if (req[w] == kNullOp) continue;
    SYMNET_CHECK(req[w] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
    const TBlob* b = &in[w * k];
    const SGDHyper h{p.lrs.values[w], p.wds.values[w], p.momentum, p.rescale_grad, p.clip_gradient};
    SYMNET_FLOAT_TYPE_SWITCH(b[0].dtype_, W, {
      if constexpr (mp) {
        SGDStep<xpu, W, float>(b[0].Size(), b[0].dptr<W>(), b[1].dptr<W>(),
                          with_mom ? b[2].dptr<float>() : nullptr, b[k - 1].dptr<float>(),
                          out[w].dptr<W>(), h);
      } else {
        SGDStep<xpu, W, W>(b[0].Size(), b[0].dptr<W>(), b[1].dptr<W>(), with_mom ? b[2].dptr<W>() : nullptr,
                      nullptr, out[w].dptr<W>(), h);
      }
    });
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_MULTI_SGD_H_
