/*!
 * \brief LRN's parameter and the window functors shared by the GPU kernel and the CPU's plain
 *  loop (float64, and shapes oneDNN is not given). MXNet 1.9.1's window is symmetric, half =
 *  (nsize - 1) / 2 channels on each side (so an even nsize sums nsize - 1 channels), and alpha is
 *  divided by nsize: y = x / (knorm + alpha / nsize * sum x^2)^beta.
 */
#ifndef SYMNET_OPERATORS_NN_LRN_H_
#define SYMNET_OPERATORS_NN_LRN_H_

#include <cmath>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct LRNParam : public dmlc::Parameter<LRNParam> {
  float alpha, beta, knorm;
  uint32_t nsize;
  DMLC_DECLARE_PARAMETER(LRNParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(1e-4f).describe("Scale of the sum of squares.");
    DMLC_DECLARE_FIELD(beta).set_default(0.75f).describe("Power of the normalizer.");
    DMLC_DECLARE_FIELD(knorm).set_default(2.0f).describe("Offset added to the scaled sum.");
    DMLC_DECLARE_FIELD(nsize).describe("Channels in the normalization window.");
  }
};

/*! \brief NCHW data seen as (N, C, inner) with the window constants. */
struct LRNView {
  int64_t c, inner, half;
  double k, a_over_n, beta;
};

inline LRNView MakeLRNView(const LRNParam& p, const Shape& s) {
  return {s[1],
          s.ProdRange(2, s.ndim()),
          static_cast<int64_t>((p.nsize - 1) / 2),
          static_cast<double>(p.knorm),
          static_cast<double>(p.alpha) / p.nsize,
          static_cast<double>(p.beta)};
}

/*! \brief knorm + alpha / nsize * (sum of x^2 over the window around channel c of element i). */
template <typename T>
SYMNET_XINLINE double LRNScale(const T* x, int64_t i, int64_t c, const LRNView& v) {
  const int64_t base = i - c * v.inner;
  const int64_t lo = c - v.half < 0 ? 0 : c - v.half;
  const int64_t hi = c + v.half >= v.c ? v.c - 1 : c + v.half;
  double s = 0;
  for (int64_t j = lo; j <= hi; ++j) {
    const double a = static_cast<AccType<T>>(x[base + j * v.inner]);
    s += a * a;
  }
  return v.k + v.a_over_n * s;
}

/*! \brief One output element: its window sum, then the power. */
template <int req>
struct LRNForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* x, T* y, LRNView v) {
    const int64_t c = (i / v.inner) % v.c;
    const double s = LRNScale(x, i, c, v);
    const double val = static_cast<AccType<T>>(x[i]) * pow(s, -v.beta);
    AssignReq<req>(&y[i], static_cast<AccType<T>>(val));
  }
};

/*!
 * \brief One input gradient: dx_i = dy_i s_i^-b - 2 b alpha/n x_i sum_j dy_j x_j s_j^(-b-1),
 *  the sum over the channels j whose window holds i (the same window, being symmetric). Each s_j
 *  is recomputed, which keeps the kernel free of a stored normalizer.
 */
template <int req>
struct LRNBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* dy, const T* x, T* dx, LRNView v) {
    const int64_t c = (i / v.inner) % v.c;
    const int64_t base = i - c * v.inner;
    const int64_t lo = c - v.half < 0 ? 0 : c - v.half;
    const int64_t hi = c + v.half >= v.c ? v.c - 1 : c + v.half;
    double cross = 0;
    for (int64_t j = lo; j <= hi; ++j) {
      const int64_t k = base + j * v.inner;
      const double s = LRNScale(x, k, j, v);
      cross += static_cast<AccType<T>>(dy[k]) * static_cast<double>(static_cast<AccType<T>>(x[k])) *
               pow(s, -v.beta - 1);
    }
    const double xi = static_cast<AccType<T>>(x[i]);
    const double val = static_cast<AccType<T>>(dy[i]) * pow(LRNScale(x, i, c, v), -v.beta) -
                       2 * v.beta * v.a_over_n * xi * cross;
    AssignReq<req>(&dx[i], static_cast<AccType<T>>(val));
  }
};

/*! \brief The functor kernels on any device (the GPU, and the CPU's plain loop). */
template <typename xpu>
void LRNForwardLoop(const LRNParam& p, const TBlob& x, OpReqType req, const TBlob& y) {
  const LRNView v = MakeLRNView(p, x.shape_);
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<LRNForwardKernel<Req>, xpu>::Launch(x.Size(), x.dptr<T>(), y.dptr<T>(), v);
    });
  });
}

template <typename xpu>
void LRNBackwardLoop(const LRNParam& p, const TBlob& dy, const TBlob& x, OpReqType req,
                     const TBlob& dx) {
  const LRNView v = MakeLRNView(p, x.shape_);
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<LRNBackwardKernel<Req>, xpu>::Launch(x.Size(), dy.dptr<T>(), x.dptr<T>(), dx.dptr<T>(),
                                                  v);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_LRN_H_
