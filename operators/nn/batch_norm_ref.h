/*!
 * \brief BatchNorm in plain loops (double accumulation), cut into the pieces between which
 *  SyncBatchNorm sums its per-channel sums over the ranks: BatchNorm's reference path (float64,
 *  layouts oneDNN does not take) runs them back to back, SyncBatchNorm with an all-reduce between.
 */
#ifndef SYMNET_OPERATORS_NN_BATCH_NORM_REF_H_
#define SYMNET_OPERATORS_NN_BATCH_NORM_REF_H_

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "batch_norm.h"

namespace symnet {
namespace ops {
namespace bn_ref {

/*! \brief Per channel c: sum[c] = sum of x, sumsq[c] = sum of x^2. */
template <typename T>
void ChannelSums(const ChannelView& v, const T* x, double* sum, double* sumsq) {
#pragma omp parallel for
  for (int64_t c = 0; c < v.c; ++c) {
    double s = 0, ss = 0;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const double val = static_cast<AccType<T>>(x[(o * v.c + c) * v.inner + i]);
        s += val;
        ss += val * val;
      }
    sum[c] = s;
    sumsq[c] = ss;
  }
}

/*! \brief mean and biased variance of `count` elements from their sums. */
template <typename P>
void MomentsFromSums(int64_t channels, const double* sum, const double* sumsq, double count,
                     P* mean, P* var) {
  for (int64_t c = 0; c < channels; ++c) {
    const double m = sum[c] / count;
    mean[c] = static_cast<P>(m);
    var[c] = static_cast<P>(std::max(sumsq[c] / count - m * m, 0.0));
  }
}

/*! \brief y = (x - mean) / sqrt(var + eps) * gamma + beta; gamma == nullptr means 1. */
template <typename T, typename P>
void Normalize(const ChannelView& v, const T* x, const P* gamma, const P* beta, const P* mean,
               const P* var, double eps, T* y, OpReqType req) {
#pragma omp parallel for
  for (int64_t c = 0; c < v.c; ++c) {
    const double g = gamma == nullptr ? 1.0 : static_cast<double>(gamma[c]);
    const double scale = g / std::sqrt(static_cast<double>(var[c]) + eps);
    const double shift = static_cast<double>(beta[c]) - static_cast<double>(mean[c]) * scale;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t k = (o * v.c + c) * v.inner + i;
        PutReq(&y[k], req, static_cast<AccType<T>>(x[k]) * scale + shift);
      }
  }
}

/*! \brief moving = momentum * moving + (1 - momentum) * batch, for the mean and the variance. */
template <typename P>
void UpdateMoving(int64_t channels, float momentum, const P* mean, const P* var, P* moving_mean,
                  P* moving_var) {
  const P mo = static_cast<P>(momentum);
  for (int64_t c = 0; c < channels; ++c) {
    moving_mean[c] = mo * moving_mean[c] + (P(1) - mo) * mean[c];
    moving_var[c] = mo * moving_var[c] + (P(1) - mo) * var[c];
  }
}

/*! \brief Per channel: sum_dy[c] = sum of dy, sum_dy_xhat[c] = sum of dy * xhat. */
template <typename T, typename P>
void GradSums(const ChannelView& v, const T* dy, const T* x, const P* mean, const P* var,
              double eps, double* sum_dy, double* sum_dy_xhat) {
#pragma omp parallel for
  for (int64_t c = 0; c < v.c; ++c) {
    const double m = static_cast<double>(mean[c]);
    const double invstd = 1.0 / std::sqrt(static_cast<double>(var[c]) + eps);
    double s = 0, sx = 0;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t k = (o * v.c + c) * v.inner + i;
        const double d = static_cast<AccType<T>>(dy[k]);
        s += d;
        sx += d * (static_cast<AccType<T>>(x[k]) - m) * invstd;
      }
    sum_dy[c] = s;
    sum_dy_xhat[c] = sx;
  }
}

/*!
 * \brief dx from dy and the gradient sums over the `count` elements the statistics came from:
 *  g * invstd * (dy - sum_dy / count - xhat * sum_dy_xhat / count) with batch statistics, and
 *  g * invstd * dy with fixed (moving) ones. gamma == nullptr means 1.
 */
template <typename T, typename P>
void GradData(const ChannelView& v, const T* dy, const T* x, const P* gamma, const P* mean,
              const P* var, double eps, bool batch_stats, double count, const double* sum_dy,
              const double* sum_dy_xhat, T* dx, OpReqType req) {
  if (req == kNullOp) return;
#pragma omp parallel for
  for (int64_t c = 0; c < v.c; ++c) {
    const double m = static_cast<double>(mean[c]);
    const double invstd = 1.0 / std::sqrt(static_cast<double>(var[c]) + eps);
    const double gi = (gamma == nullptr ? 1.0 : static_cast<double>(gamma[c])) * invstd;
    const double mean_dy = batch_stats ? sum_dy[c] / count : 0.0;
    const double mean_dy_xhat = batch_stats ? sum_dy_xhat[c] / count : 0.0;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t k = (o * v.c + c) * v.inner + i;
        const double xhat = (static_cast<AccType<T>>(x[k]) - m) * invstd;
        PutReq(&dx[k], req, gi * (static_cast<AccType<T>>(dy[k]) - mean_dy - xhat * mean_dy_xhat));
      }
  }
}

}  // namespace bn_ref
}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_BATCH_NORM_REF_H_
