/*! \brief BatchNorm's parameter and channel view (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_NN_BATCH_NORM_H_
#define SYMNET_OPERATORS_NN_BATCH_NORM_H_

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*! \brief The fields BatchNorm and SyncBatchNorm share: MXNet's names, defaults and meanings. */
#define SYMNET_BATCH_NORM_FIELDS                                                                \
  DMLC_DECLARE_FIELD(eps).set_default(1e-3).describe(                                           \
      "Added to the variance before the square root.");                                         \
  DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe("Momentum of the moving average.");   \
  DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe("Fix gamma at 1 (zero gradient).");  \
  DMLC_DECLARE_FIELD(use_global_stats)                                                          \
      .set_default(false)                                                                       \
      .describe(                                                                                \
          "Normalize with the moving statistics also in training (and do not update "           \
          "them).");                                                                            \
  DMLC_DECLARE_FIELD(output_mean_var)                                                           \
      .set_default(false)                                                                       \
      .describe(                                                                                \
          "Also output the mean and the variance (BatchNorm: as 1 / sqrt(var + eps), as MXNet " \
          "does).")

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
    SYMNET_BATCH_NORM_FIELDS;
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

/*! \brief MXNet's contrib.SyncBatchNorm: axis 1 only; ndev and key as in MXNet. */
struct SyncBatchNormParam : public dmlc::Parameter<SyncBatchNormParam> {
  double eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  int ndev;
  std::string key;
  DMLC_DECLARE_PARAMETER(SyncBatchNormParam) {
    SYMNET_BATCH_NORM_FIELDS;
    DMLC_DECLARE_FIELD(ndev).set_default(1).describe(
        "Accepted for MXNet compatibility: the statistics are synced over the ranks of the "
        "distributed job.");
    DMLC_DECLARE_FIELD(key).set_default("").describe(
        "Accepted for MXNet compatibility (the layer's name in its errors).");
  }
};

enum { kData, kGamma, kBeta, kMovingMean, kMovingVar };

/*!
 * \brief SyncBatchNorm's step between its local and its global sums (sync_batch_norm.cc):
 *  `sums` (per-channel sums, then this rank's element count last) are summed over the ranks of
 *  the job in place; `part` ("statistics", "gradients") names the call in errors.
 */
void SyncBatchNormSumOverRanks(const NodeAttrs& attrs, const char* part, double* sums, size_t n);

inline int ChannelAxis(int axis, int ndim) {
  const int a = axis < 0 ? axis + ndim : axis;
  SYMNET_CHECK(a >= 0 && a < ndim)
      << "BatchNorm axis " << axis << " is out of range for " << ndim << "-D data";
  return a;
}
inline int ChannelAxis(const BatchNormParam& p, int ndim) { return ChannelAxis(p.axis, ndim); }

/*! \brief Shape rule of BatchNorm-like ops (data, gamma, beta, moving_mean, moving_var) ->
 *  (out, mean, var) normalizing over `axis` (may be negative). */
bool BatchNormShape(int axis, std::vector<Shape>* in, std::vector<Shape>* out);
/*! \brief Their type rule: gamma, beta, the statistics and mean/var are float32 for 16-bit
 *  data (float64 for float64). */
bool BatchNormType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);

/*! \brief VarianceToInvStd over a CPU blob of float32 or float64 variances, in place. */
void VarianceToInvStdInPlace(const TBlob& var, double eps);
/*!
 * \brief The variances (InvStdToVariance) of a CPU blob of 1 / sqrt(var + eps): a blob of its
 *  shape and dtype whose data lie in *buf.
 */
TBlob VarianceFromInvStd(const TBlob& invstd, double eps, std::vector<double>* buf);

/*!
 * \brief The five inputs every BatchNorm-like op takes (data, gamma, beta, moving_mean,
 *  moving_var): their count, documentation and names.
 */
Op& BatchNormInputs(Op& op);

/*!
 * \brief Registers what BatchNorm and SyncBatchNorm share: inputs (data, gamma, beta,
 *  moving_mean, moving_var) with the moving statistics mutated auxiliary states initialized to 0
 *  and 1, outputs (output, mean, var) of which output_mean_var(attrs) shows all three, the shape
 *  and type rules over axis_of(attrs), and the gradient node `backward_op` taking
 *  (dy, data, gamma, mean, var) and giving (d data, d gamma, d beta).
 */
Op& BatchNormLikeOp(Op& op, const char* backward_op, std::function<int(const NodeAttrs&)> axis_of,
                    std::function<bool(const NodeAttrs&)> output_mean_var);

/*!
 * \brief BatchNorm's third output, as MXNet 1.9.1 gives it: not the variance but
 *  1 / sqrt(var + eps), which MXNet's kernels store there for their backward (in training and in
 *  inference, oneDNN or not). The forward turns the variance it normalized with into that in
 *  place (after the moving average took it) and the backward turns it back, so the rest of the
 *  kernels keep working with variances. SyncBatchNorm's third output stays the variance, as in
 *  MXNet.
 */
template <typename P>
SYMNET_XINLINE P VarianceToInvStd(P var, double eps) {
  return static_cast<P>(1.0 / sqrt(static_cast<double>(var) + eps));
}
/*! \brief The variance back from 1 / sqrt(var + eps): var + eps to about one rounding of P. */
template <typename P>
SYMNET_XINLINE P InvStdToVariance(P invstd, double eps) {
  const double s = static_cast<double>(invstd);
  return static_cast<P>(1.0 / (s * s) - eps);
}

/*! \brief Writes or adds `val` to *dst by req (kNullOp skips); on the CPU and the GPU. */
template <typename D>
SYMNET_XINLINE void PutReq(D* dst, OpReqType req, double val) {
  if (req == kAddTo) {
    AssignReq<kAddTo>(dst, static_cast<AccType<D>>(val));
  } else if (req != kNullOp) {
    AssignReq<kWriteTo>(dst, static_cast<AccType<D>>(val));
  }
}

/*! \brief The data seen as (outer, C, inner) in memory order. */
struct ChannelView {
  int64_t outer, c, inner;
};

/*!
 * \brief x as (outer, C, inner) in memory order for normalization over channel axis `axis` (may
 *  be negative); channels-last data (flagged by the layout plan) is (N * spatial, C, 1), which
 *  only axis 1 may use. Shared by the CPU loops and the GPU kernels.
 */
inline ChannelView ChannelViewOf(const TBlob& x, int axis) {
  const Shape& s = x.shape_;
  const int a = ChannelAxis(axis, s.ndim());
  if (x.channels_last()) {
    SYMNET_CHECK_EQ(a, 1) << "channels-last BatchNorm data must normalize axis 1";
    return {s.Size() / s[1], s[1], 1};
  }
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim())};
}

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
