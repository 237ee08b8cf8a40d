/*! \brief Fused multi-weight SGD update parameters and kernels, templated on the device. */
#ifndef SYMNET_OPERATORS_OPTIMIZER_MULTI_SGD_H_
#define SYMNET_OPERATORS_OPTIMIZER_MULTI_SGD_H_

#include <type_traits>
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
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe(
            "Clips the rescaled gradients to [-clip_gradient, clip_gradient]; negative: no "
            "clipping.");
    DMLC_DECLARE_FIELD(num_weights)
        .set_default(1)
        .set_lower_bound(1)
        .describe("Number of weights.");
  }
};

template <bool with_mom, bool mp>
constexpr int Stride() {
  return 2 + (with_mom ? 1 : 0) + (mp ? 1 : 0);
}

/*! \brief Weights updated by one kernel launch: the GPU gets them as one kernel argument. */
constexpr int kMultiSGDMaxTensors = 48;

template <typename W, typename M>
struct MultiSGDBatch {
  int count = 0;
  int64_t end[kMultiSGDMaxTensors];  // cumulative element counts
  const W* weight[kMultiSGDMaxTensors];
  const W* grad[kMultiSGDMaxTensors];
  M* mom[kMultiSGDMaxTensors];
  M* w32[kMultiSGDMaxTensors];
  W* out[kMultiSGDMaxTensors];
  float lr[kMultiSGDMaxTensors], wd[kMultiSGDMaxTensors];
};

/*! \brief Element i of the concatenated weights: found by binary search, then one SGD step. */
struct MultiSGDKernel {
  template <typename W, typename M>
  SYMNET_XINLINE static void Map(int64_t i, const MultiSGDBatch<W, M>& b, float momentum,
                                 float rescale, float clip) {
    int lo = 0, hi = b.count - 1;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (b.end[mid] > i) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const int64_t j = i - (lo > 0 ? b.end[lo - 1] : 0);
    SGDKernel::Map(j, b.weight[lo], b.grad[lo], b.mom[lo], b.w32[lo], b.out[lo],
                   SGDHyper{b.lr[lo], b.wd[lo], momentum, rescale, clip});
  }
};

/*!
 * \brief On a GPU, one launch per run of up to kMultiSGDMaxTensors consecutive weights of one
 *  dtype (ResNet-50's 161 weights: 4 launches instead of 161). The CPU loops over the weights:
 *  its results stay bit-identical to the single-weight ops (a test checks that), which the
 *  batched loop's different floating-point contraction would not guarantee.
 */
template <bool with_mom, bool mp, typename xpu = cpu>
void MultiSGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiSGDParam& p = Param<MultiSGDParam>(attrs);
  constexpr int k = Stride<with_mom, mp>();
  SYMNET_CHECK(static_cast<int>(p.lrs.values.size()) == p.num_weights &&
               static_cast<int>(p.wds.values.size()) == p.num_weights)
      << "lrs and wds need one value per weight (" << p.num_weights << ")";
  std::vector<int> todo;
  for (int w = 0; w < p.num_weights; ++w) {
    if (req[w] == kNullOp) continue;
    SYMNET_CHECK(req[w] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
    todo.push_back(w);
  }
  if constexpr (!std::is_same<xpu, gpu>::value) {
    for (int w : todo) {
      const TBlob* b = &in[w * k];
      const SGDHyper h{p.lrs.values[w], p.wds.values[w], p.momentum, p.rescale_grad,
                       p.clip_gradient};
      SYMNET_FLOAT_TYPE_SWITCH(b[0].dtype_, W, {
        using M = typename std::conditional<mp, float, W>::type;
        SGDStep<xpu, W, M>(b[0].Size(), b[0].dptr<W>(), b[1].dptr<W>(),
                           with_mom ? b[2].dptr<M>() : nullptr, mp ? b[k - 1].dptr<M>() : nullptr,
                           out[w].dptr<W>(), h);
      });
    }
    return;
  }
  for (size_t first = 0; first < todo.size();) {
    const DType t = in[todo[first] * k].dtype_;
    size_t last = first;
    while (last < todo.size() && last - first < kMultiSGDMaxTensors &&
           in[todo[last] * k].dtype_ == t)
      ++last;
    SYMNET_FLOAT_TYPE_SWITCH(t, W, {
      using M = typename std::conditional<mp, float, W>::type;
      MultiSGDBatch<W, M> batch;
      int64_t total = 0;
      for (size_t r = first; r < last; ++r) {
        const int w = todo[r];
        const TBlob* b = &in[w * k];
        const int c = batch.count++;
        total += b[0].Size();
        batch.end[c] = total;
        batch.weight[c] = b[0].dptr<W>();
        batch.grad[c] = b[1].dptr<W>();
        batch.mom[c] = with_mom ? b[2].dptr<M>() : nullptr;
        batch.w32[c] = mp ? b[k - 1].dptr<M>() : nullptr;
        batch.out[c] = out[w].dptr<W>();
        batch.lr[c] = p.lrs.values[w];
        batch.wd[c] = p.wds.values[w];
      }
      Kernel<MultiSGDKernel, xpu>::Launch(total, batch, p.momentum, p.rescale_grad,
                                          p.clip_gradient);
    });
    first = last;
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_MULTI_SGD_H_
