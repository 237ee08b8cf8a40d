/*!
 * \brief The statistics, normalization and backward kernels that LayerNorm, InstanceNorm and
 *  GroupNorm share (CPU loops and GPU kernels alike). Each op sees its data as (A, R, B) and
 *  normalizes over R, so a group is one (a, b) pair: LayerNorm's axis is R; InstanceNorm is
 *  (N*C, spatial, 1); GroupNorm is (N*G, C/G*spatial, 1). Statistics are indexed by the group
 *  g = a * B + b, which is also their memory order in the ops' mean/std outputs.
 */
#ifndef SYMNET_OPERATORS_NN_NORM_KERNELS_H_
#define SYMNET_OPERATORS_NN_NORM_KERNELS_H_

#include <cmath>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*!
 * \brief The ops' shared type rule: data, gamma, beta, the output and the statistics share one
 *  floating dtype (MXNet's rule for LayerNorm and GroupNorm).
 */
FInferType NormType(const char* op);
/*!
 * \brief FGradient: `backward_op` takes (dy, data, gamma, mean, stat) and gives (ddata, dgamma,
 *  dbeta); the statistics outputs pass no gradient on.
 */
FGradient NormGradient(const char* backward_op);

/*! \brief The (A, R, B) view of the data and where gamma/beta come from. */
struct NormView {
  int64_t A, R, B;
  // gamma/beta of group g: index (g / B) % gmod (InstanceNorm, GroupNorm); gmod == 0 means one
  // per position along R (LayerNorm)
  int64_t gmod;
  double eps;
  // the second statistic is the variance (InstanceNorm's hidden output) rather than
  // sqrt(variance + eps)
  bool stat_is_var;
  SYMNET_XINLINE int64_t groups() const { return A * B; }
  SYMNET_XINLINE int64_t base(int64_t g) const { return (g / B) * R * B + g % B; }
  SYMNET_XINLINE int64_t param(int64_t g, int64_t r) const { return gmod ? (g / B) % gmod : r; }
  /*! \brief gamma/beta elements: R (LayerNorm) or gmod. */
  SYMNET_XINLINE int64_t params() const { return gmod ? gmod : R; }
};

/*! \brief 1 / sqrt(var + eps) from the stored statistic. */
template <typename A, typename T>
SYMNET_XINLINE A NormInvStd(const T* stat, int64_t g, const NormView& v) {
  const A s = static_cast<A>(static_cast<AccType<T>>(stat[g]));
  return v.stat_is_var ? A(1) / sqrt(s + static_cast<A>(v.eps)) : A(1) / s;
}

/*!
 * \brief One group: its mean and variance (two passes, in AccType: float for 16-bit data), then
 *  y = (x - mean) / sqrt(var + eps) * gamma + beta. `mean`/`stat` may be null (not requested).
 */
template <int req>
struct NormForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t g, const T* x, const T* gamma, const T* beta, T* y,
                                 T* mean, T* stat, NormView v) {
    using A = AccType<T>;
    const int64_t b = v.base(g);
    A s = 0;
    for (int64_t r = 0; r < v.R; ++r) s += static_cast<A>(x[b + r * v.B]);
    const A m = s / static_cast<A>(v.R);
    A ss = 0;
    for (int64_t r = 0; r < v.R; ++r) {
      const A d = static_cast<A>(x[b + r * v.B]) - m;
      ss += d * d;
    }
    const A var = ss / static_cast<A>(v.R);
    const A sd = sqrt(var + static_cast<A>(v.eps));
    const A inv = A(1) / sd;
    if (mean) mean[g] = T(m);
    if (stat) stat[g] = T(v.stat_is_var ? var : sd);
    for (int64_t r = 0; r < v.R; ++r) {
      const int64_t k = b + r * v.B, p = v.param(g, r);
      const A val =
          (static_cast<A>(x[k]) - m) * inv * static_cast<A>(gamma[p]) + static_cast<A>(beta[p]);
      AssignReq<req>(&y[k], val);
    }
  }
};

/*!
 * \brief dx of one group: with xh = (x - mean) * inv and e = dy * gamma,
 *  dx = inv * (e - mean_R(e) - xh * mean_R(e * xh)).
 */
template <int req>
struct NormBackwardDataKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t g, const T* dy, const T* x, const T* gamma, const T* mean,
                                 const T* stat, T* dx, NormView v) {
    using A = AccType<T>;
    const int64_t b = v.base(g);
    const A m = static_cast<A>(mean[g]);
    const A inv = NormInvStd<A>(stat, g, v);
    A se = 0, sex = 0;
    for (int64_t r = 0; r < v.R; ++r) {
      const int64_t k = b + r * v.B;
      const A e = static_cast<A>(dy[k]) * static_cast<A>(gamma[v.param(g, r)]);
      se += e;
      sex += e * (static_cast<A>(x[k]) - m) * inv;
    }
    const A n = static_cast<A>(v.R);
    se /= n;
    sex /= n;
    for (int64_t r = 0; r < v.R; ++r) {
      const int64_t k = b + r * v.B;
      const A e = static_cast<A>(dy[k]) * static_cast<A>(gamma[v.param(g, r)]);
      const A xh = (static_cast<A>(x[k]) - m) * inv;
      AssignReq<req>(&dx[k], inv * (e - se - xh * sex));
    }
  }
};

/*! \brief Writes or adds per a runtime request (the parameter kernel has two of them). */
template <typename T, typename A>
SYMNET_XINLINE void NormPut(T* dst, int req, A val) {
  if (req == kAddTo) {
    AssignReq<kAddTo>(dst, val);
  } else if (req != kNullOp) {
    AssignReq<kWriteTo>(dst, val);
  }
}

/*!
 * \brief dgamma[q] = sum dy * xh and dbeta[q] = sum dy over the elements that parameter q
 *  scales: position q along R of every group (LayerNorm), or every element of the groups with
 *  (g / B) % gmod == q. One thread per parameter; an empty batch writes zeros.
 */
struct NormBackwardParamKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t q, const T* dy, const T* x, const T* mean, const T* stat,
                                 T* dgamma, T* dbeta, int req_gamma, int req_beta, NormView v) {
    using A = AccType<T>;
    A sg = 0, sb = 0;
    if (v.gmod == 0) {
      for (int64_t g = 0; g < v.groups(); ++g) {
        const int64_t k = v.base(g) + q * v.B;
        const A d = static_cast<A>(dy[k]);
        sb += d;
        sg += d * (static_cast<A>(x[k]) - static_cast<A>(mean[g])) * NormInvStd<A>(stat, g, v);
      }
    } else {
      for (int64_t a = q; a < v.A; a += v.gmod)
        for (int64_t bi = 0; bi < v.B; ++bi) {
          const int64_t g = a * v.B + bi, b = v.base(g);
          const A m = static_cast<A>(mean[g]), inv = NormInvStd<A>(stat, g, v);
          for (int64_t r = 0; r < v.R; ++r) {
            const A d = static_cast<A>(dy[b + r * v.B]);
            sb += d;
            sg += d * (static_cast<A>(x[b + r * v.B]) - m) * inv;
          }
        }
    }
    NormPut(&dgamma[q], req_gamma, sg);
    NormPut(&dbeta[q], req_beta, sb);
  }
};

/*!
 * \brief Forward: inputs (data, gamma, beta); outputs (out, mean, std or var). Any float dtype
 *  (16-bit data accumulates in float32).
 */
template <typename xpu>
void NormForward(const NormView& v, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  if (v.groups() == 0) return;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    T* mean = req[1] == kNullOp ? nullptr : out[1].dptr<T>();
    T* stat = req[2] == kNullOp ? nullptr : out[2].dptr<T>();
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<NormForwardKernel<Req>, xpu>::LaunchCost(
          v.groups(), in[0].Size() / v.groups(), in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
          out[0].dptr<T>(), mean, stat, v);
    });
    if (req[0] == kNullOp && (mean || stat)) {  // statistics only
      Kernel<NormForwardKernel<kNullOp>, xpu>::LaunchCost(
          v.groups(), in[0].Size() / v.groups(), in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
          out[0].dptr<T>(), mean, stat, v);
    }
  });
}

/*!
 * \brief Backward: inputs (dy, data, gamma, mean, stat); outputs (ddata, dgamma, dbeta). The
 *  head gradients of mean and std are ignored, as in MXNet.
 */
template <typename xpu>
void NormBackward(const NormView& v, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    const T *dy = in[0].dptr<T>(), *x = in[1].dptr<T>(), *gamma = in[2].dptr<T>();
    const T *mean = in[3].dptr<T>(), *stat = in[4].dptr<T>();
    if (v.groups() > 0 && v.R > 0) {
      SYMNET_REQ_SWITCH(req[0], Req, {
        Kernel<NormBackwardDataKernel<Req>, xpu>::LaunchCost(
            v.groups(), in[1].Size() / v.groups(), dy, x, gamma, mean, stat, out[0].dptr<T>(), v);
      });
    }
    if ((req[1] != kNullOp || req[2] != kNullOp) && v.params() > 0) {
      Kernel<NormBackwardParamKernel, xpu>::LaunchCost(
          v.params(), in[1].Size() / v.params(), dy, x, mean, stat, out[1].dptr<T>(),
          out[2].dptr<T>(), static_cast<int>(req[1]), static_cast<int>(req[2]), v);
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_NORM_KERNELS_H_
