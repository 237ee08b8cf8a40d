/*! \brief Softmax along an axis of an (outer, n, inner) view, shared by softmax and loss ops. */
#ifndef SYMNET_OPERATORS_NN_SOFTMAX_H_
#define SYMNET_OPERATORS_NN_SOFTMAX_H_

#include <algorithm>
#include <cmath>

#include "../kernel_launch.h"
#include "../operator_common.h"

namespace symnet {
namespace ops {

/*! \brief A shape seen as (outer, n, inner) around one axis. */
struct AxisSplit {
  int64_t outer, n, inner;
};

inline AxisSplit SplitAtAxis(const Shape& s, int axis) {
  const int a = axis < 0 ? axis + s.ndim() : axis;
  SYMNET_CHECK(a >= 0 && a < s.ndim()) << "axis " << axis << " is out of range for shape " << s;
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim())};
}

/*!
 * \brief y = softmax(x / t) (or log_softmax) over axis n of an (outer, n, inner) array; math in
 *  float/double, row max subtracted for stability.
 */
template <bool is_log, typename T>
void SoftmaxForward(const T* x, T* y, AxisSplit sp, double t, OpReqType req) {
  using A = AccType<T>;
  const A inv_t = static_cast<A>(1.0 / t);
  const int64_t rows = sp.outer * sp.inner;
#pragma omp parallel for if (rows * sp.n >= kOmpMinWork)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t o = r / sp.inner, in = r % sp.inner;
    const T* xr = x + o * sp.n * sp.inner + in;
    T* yr = y + o * sp.n * sp.inner + in;
    A mx = -INFINITY;
    for (int64_t k = 0; k < sp.n; ++k) mx = std::max(mx, static_cast<A>(xr[k * sp.inner]) * inv_t);
    A sum = 0;
    for (int64_t k = 0; k < sp.n; ++k) sum += std::exp(static_cast<A>(xr[k * sp.inner]) * inv_t - mx);
    const A log_sum = std::log(sum);
    for (int64_t k = 0; k < sp.n; ++k) {
      const A z = static_cast<A>(xr[k * sp.inner]) * inv_t - mx;
      const A v = is_log ? z - log_sum : std::exp(z) / sum;
      if (req == kAddTo) {
        AssignReq<kAddTo>(&yr[k * sp.inner], v);
      } else {
        AssignReq<kWriteTo>(&yr[k * sp.inner], v);
      }
    }
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_SOFTMAX_H_
