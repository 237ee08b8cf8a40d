/*! \brief BatchNorm's parameter and channel view (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_NN_BATCH_NORM_H_
#define SYMNET_OPERATORS_NN_BATCH_NORM_H_

#include "../operator_common.h"

namespace symnet {
namespace ops {

struct BatchNormParam : public dmlc::Parameter<BatchNormParam> {
  double eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  int axis;
  bool cudnn_off;
  dmlc::optional<float> min_calib_range, max_calib_range;
  DMLC_DECLARE_PARAMETER(BatchNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3).describe(
        "Added to the variance before the square root.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe("Momentum of the moving average.");
    DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe("Fix gamma at 1 (zero gradient).");
    DMLC_DECLARE_FIELD(use_global_stats)
        .set_default(false)
        .describe(
            "Normalize with the moving statistics also in training (and do not update them).");
    DMLC_DECLARE_FIELD(output_mean_var)
        .set_default(false)
        .describe("Also output mean and variance.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("The channel axis.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Accepted for MXNet compatibility.");
    DMLC_DECLARE_FIELD(min_calib_range)
        .set_default(dmlc::optional<float>())
        .describe("Accepted for MXNet compatibility (quantization).");
    DMLC_DECLARE_FIELD(max_calib_range)
        .set_default(dmlc::optional<float>())
        .describe("Accepted for MXNet compatibility (quantization).");
  }
};
enum { kData, kGamma, kBeta, kMovingMean, kMovingVar };

inline int ChannelAxis(const BatchNormParam& p, int ndim) {
  const int a = p.axis < 0 ? p.axis + ndim : p.axis;
  SYMNET_CHECK(a >= 0 && a < ndim)
      << "BatchNorm axis " << p.axis << " is out of range for " << ndim << "-D data";
  return a;
}

/*! \brief The data seen as (outer, C, inner) in memory order. */
struct ChannelView {
  int64_t outer, c, inner;
};

/*!
 * \brief How the GPU's statistics kernels split the work (batch_norm.cu), written here so that
 *  tests check on the CPU that every element is summed once, by its channel. Channels-first:
 *  thread `tid` of block `part` (of `parts`, `threads` threads each) of channel c calls f(offset)
 *  for its elements; rows of `inner` elements are read without divisions when long enough.
 */
template <typename F>
SYMNET_XINLINE void VisitChannelPart(int64_t c, int64_t part, int64_t parts, int64_t tid,
                                     int64_t threads, int64_t outer, int64_t C, int64_t inner,
                                     F&& f) {
  if (inner >= 32) {
    for (int64_t o = part; o < outer; o += parts) {
      const int64_t base = (o * C + c) * inner;
      for (int64_t i = tid; i < inner; i += threads) f(base + i);
    }
  } else {
    const int64_t count = outer * inner;
    for (int64_t j = part * threads + tid; j < count; j += parts * threads)
      f(((j / inner) * C + c) * inner + j % inner);
  }
}

/*!
 * \brief Channels-last (rows, C) data: thread row `ty` (of `block_rows`) of block `part` (of
 *  `parts`) calls f(offset) for channel c's elements in its rows.
 */
template <typename F>
SYMNET_XINLINE void VisitChannelsLastRows(int64_t c, int64_t part, int64_t parts, int64_t ty,
                                          int64_t block_rows, int64_t rows, int64_t C, F&& f) {
  for (int64_t r = part * block_rows + ty; r < rows; r += parts * block_rows) f(r * C + c);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_BATCH_NORM_H_
