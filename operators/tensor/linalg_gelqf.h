/*!
 * \brief _linalg_gelqf (MXNet's linalg.gelqf): the LQ factorisation A = L * Q of each matrix of
 *  the trailing two dims, A (m x n) with m <= n, Q (m x n) with orthonormal rows and L (m x m)
 *  lower triangular. Householder reflections as LAPACK's gelqf + orglq compute them, so the
 *  signs are LAPACK's (and MXNet's): L's diagonal is -sign(a) * norm of the reflected row.
 *
 *  One matrix per call of a SYMNET_XINLINE functor (one thread per matrix on a GPU, OpenMP over
 *  matrices on the CPU), in double in scratch memory: float32 results then agree with float64's
 *  to float32 rounding, as the test of MXNet compares them.
 *
 *  Gradient (Seeger et al., "Auto-differentiating linear algebra", as MXNet):
 *  M = L^T dL - dQ Q^T, dA = L^-T (dQ + copyltu(M) Q), copyltu(M) the symmetric matrix with M's
 *  lower triangle.
 */
#ifndef SYMNET_OPERATORS_TENSOR_LINALG_GELQF_H_
#define SYMNET_OPERATORS_TENSOR_LINALG_GELQF_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*! \brief Factorises matrix b: A (m x n) into Q (m x n) and L (m x m); w is its m*n + m doubles
 *  of scratch (the working matrix, then the m reflector scales tau). */
struct GelqfKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, const T* a, T* q, T* l, double* work, int64_t m,
                                 int64_t n) {
    a += b * m * n;
    q += b * m * n;
    l += b * m * m;
    double* w = work + b * (m * n + m);
    double* tau = w + m * n;
    for (int64_t i = 0; i < m * n; ++i) w[i] = static_cast<double>(a[i]);
    // gelq2: reflector i zeroes row i right of the diagonal; its vector (1, w[i, i+1:]) is kept
    // in the row, the new diagonal entry (beta) on the diagonal
    for (int64_t i = 0; i < m; ++i) {
      double* r = w + i * n;
      double xnorm = 0;
      for (int64_t c = i + 1; c < n; ++c) xnorm += r[c] * r[c];
      xnorm = sqrt(xnorm);
      tau[i] = 0;
      if (xnorm == 0) continue;  // already reduced: H = I (LAPACK's dlarfg)
      const double alpha = r[i];
      const double beta = -copysign(sqrt(alpha * alpha + xnorm * xnorm), alpha);
      tau[i] = (beta - alpha) / beta;
      const double scale = 1.0 / (alpha - beta);
      for (int64_t c = i + 1; c < n; ++c) r[c] *= scale;
      r[i] = beta;
      ApplyReflector(w, n, i, tau[i], i + 1, m);
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < m; ++c) l[i * m + c] = T(c <= i ? w[i * n + c] : 0.0);
    // orgl2: Q = the first m rows of H(m-1) ... H(0), built in place from the last reflector
    for (int64_t i = m - 1; i >= 0; --i) {
      double* r = w + i * n;
      if (i < n - 1) {
        if (i < m - 1) ApplyReflector(w, n, i, tau[i], i + 1, m);
        for (int64_t c = i + 1; c < n; ++c) r[c] *= -tau[i];
      }
      r[i] = 1.0 - tau[i];
      for (int64_t c = 0; c < i; ++c) r[c] = 0;
    }
    for (int64_t i = 0; i < m * n; ++i) q[i] = T(w[i]);
  }

  /*! \brief Rows [j0, j1) of w (columns i..n-1) times H = I - tau v v^T, v = (1, w[i, i+1:]):
   *  v's first entry is 1 whatever w[i, i] holds (beta there, while L is still to be read). */
  SYMNET_XINLINE static void ApplyReflector(double* w, int64_t n, int64_t i, double tau, int64_t j0,
                                            int64_t j1) {
    const double* v = w + i * n;
    for (int64_t j = j0; j < j1; ++j) {
      double* r = w + j * n;
      double s = r[i];
      for (int64_t c = i + 1; c < n; ++c) s += r[c] * v[c];
      s *= tau;
      r[i] -= s;
      for (int64_t c = i + 1; c < n; ++c) r[c] -= s * v[c];
    }
  }
};

/*! \brief The gradient of matrix b: dA from dQ, dL, Q and L; w is its m*m + m*n doubles of
 *  scratch (M, then dQ + copyltu(M) Q solved in place by L^T). */
template <int req>
struct GelqfBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, const T* dq, const T* dl, const T* q, const T* l, T* da,
                                 double* work, int64_t m, int64_t n) {
    dq += b * m * n;
    q += b * m * n;
    da += b * m * n;
    dl += b * m * m;
    l += b * m * m;
    double* mm = work + b * (m * m + m * n);
    double* y = mm + m * m;
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c <= r; ++c) {  // only M's lower triangle is used
        double s = 0;
        for (int64_t k = 0; k < m; ++k)
          s += static_cast<double>(l[k * m + r]) * static_cast<double>(dl[k * m + c]);
        for (int64_t k = 0; k < n; ++k)
          s -= static_cast<double>(dq[r * n + k]) * static_cast<double>(q[c * n + k]);
        mm[r * m + c] = s;
      }
    for (int64_t r = 0; r < m; ++r)
      for (int64_t k = 0; k < n; ++k) {
        double s = static_cast<double>(dq[r * n + k]);
        for (int64_t c = 0; c < m; ++c)
          s += (c <= r ? mm[r * m + c] : mm[c * m + r]) * static_cast<double>(q[c * n + k]);
        y[r * n + k] = s;
      }
    // L^T X = Y, L^T upper triangular: back substitution from the last row
    for (int64_t i = m - 1; i >= 0; --i) {
      const double d = static_cast<double>(l[i * m + i]);
      for (int64_t k = 0; k < n; ++k) {
        double s = y[i * n + k];
        for (int64_t j = i + 1; j < m; ++j) s -= static_cast<double>(l[j * m + i]) * y[j * n + k];
        y[i * n + k] = s / d;
      }
    }
    for (int64_t i = 0; i < m * n; ++i) AssignReq<req>(&da[i], y[i]);
  }
};

/*! \brief (batch, m, n) of an input of shape (..., m, n). */
inline void GelqfDims(const Shape& s, int64_t* batch, int64_t* m, int64_t* n) {
  const int nd = s.ndim();
  *m = s[nd - 2];
  *n = s[nd - 1];
  *batch = s.ProdRange(0, nd - 2);
}

inline size_t GelqfTempBytes(const Shape& a) {
  int64_t batch, m, n;
  GelqfDims(a, &batch, &m, &n);
  return static_cast<size_t>(batch * (m * n + m)) * sizeof(double);
}

inline size_t GelqfBackwardTempBytes(const Shape& a) {
  int64_t batch, m, n;
  GelqfDims(a, &batch, &m, &n);
  return static_cast<size_t>(batch * (m * m + m * n)) * sizeof(double);
}

/*! \brief Inputs (A); outputs (Q, L). */
template <typename xpu>
void GelqfForward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  int64_t batch, m, n;
  GelqfDims(in[0].shape_, &batch, &m, &n);
  if (batch * m * n == 0) return;
  SYMNET_CHECK(ctx.temp_bytes >= GelqfTempBytes(in[0].shape_))
      << "internal error: gelqf got too little scratch memory";
  SYMNET_REAL_TYPE_SWITCH(in[0].dtype_, T, {
    Kernel<GelqfKernel, xpu>::LaunchCost(batch, m * m * n, in[0].dptr<T>(), out[0].dptr<T>(),
                                         out[1].dptr<T>(), static_cast<double*>(ctx.temp), m, n);
  });
}

/*! \brief Inputs (dQ, dL, Q, L); output dA. */
template <typename xpu>
void GelqfBackward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int64_t batch, m, n;
  GelqfDims(out[0].shape_, &batch, &m, &n);
  if (req[0] == kNullOp || batch * m * n == 0) return;
  SYMNET_REAL_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<GelqfBackwardKernel<Req>, xpu>::LaunchCost(
          batch, m * m * n, in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(), in[3].dptr<T>(),
          out[0].dptr<T>(), static_cast<double*>(ctx.temp), m, n);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_LINALG_GELQF_H_
