/*!
 * \brief Pooling's per-element kernels for the GPU (Kernel<OP, gpu>), written as SYMNET_XINLINE
 *  functors so that tests also run them on the CPU (Kernel<OP, cpu>) against the CPU operator.
 *  Forward: one call per output. Backward: one call per input element, gathering from the
 *  windows that contain it (no atomics, so the result is deterministic); max pooling's gradient
 *  goes to the first maximum of each window, as on the CPU; lp pooling's is dy * (x / y)^(p-1).
 * Data is channels-first or, with `cl`, channels-last; indices run in storage order either way.
 */
#ifndef SYMNET_OPERATORS_NN_POOLING_KERNELS_H_
#define SYMNET_OPERATORS_NN_POOLING_KERNELS_H_

#include <cmath>

#include "pooling.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*!
 * \brief Splits a storage-order index of a tensor with `size` spatial positions and C channels
 *  into its (n * C + c) plane and its spatial position.
 */
SYMNET_XINLINE void SplitIndex(int64_t idx, int64_t size, int64_t C, bool cl, int64_t* plane,
                               int64_t* pos) {
  if (cl) {
    *pos = (idx / C) % size;
    *plane = (idx / (size * C)) * C + idx % C;
  } else {
    *pos = idx % size;
    *plane = idx / size;
  }
}
/*! \brief Where plane (n * C + c) starts; its spatial positions are `cl ? C : 1` apart. */
SYMNET_XINLINE int64_t PlaneBase(int64_t plane, int64_t size, int64_t C, bool cl) {
  return cl ? (plane / C) * size * C + plane % C : plane * size;
}

template <int req>
struct PoolForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* x, T* y, PoolGeo g, int type,
                                 bool include_pad, bool cl, int lp) {
    using A = AccType<T>;
    int64_t plane, oi;
    SplitIndex(idx, g.out_size(), g.c, cl, &plane, &oi);
    const T* xc = x + PlaneBase(plane, g.in_size(), g.c, cl);
    const int64_t step = cl ? g.c : 1;
    const int64_t o[3] = {oi / (g.out[1] * g.out[2]), (oi / g.out[2]) % g.out[1], oi % g.out[2]};
    const Window w = MakeWindow(g, type, include_pad, o);
    A v = type == kMaxPool ? -INFINITY : A(0);
    for (int64_t d = w.lo[0]; d < w.hi[0]; ++d)
      for (int64_t h = w.lo[1]; h < w.hi[1]; ++h)
        for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) {
          const A e = static_cast<A>(xc[((d * g.in[1] + h) * g.in[2] + c) * step]);
          v = type == kMaxPool ? (e > v ? e : v)
                               : v + (type == kLpPool ? static_cast<A>(LpTerm(e, lp)) : e);
        }
    if (type == kLpPool) {
      v = static_cast<A>(LpRoot(v, lp));
    } else if (type != kMaxPool) {
      v = static_cast<A>(v / w.divisor);
    }
    AssignReq<req>(&y[idx], v);
  }
};

/*! \brief Output positions along one dim whose windows contain input position i. */
SYMNET_XINLINE void Covering(int64_t i, int64_t k, int64_t s, int64_t p, int64_t out, int64_t* lo,
                             int64_t* hi) {
  const int64_t first = i + p - k + 1;
  *lo = first <= 0 ? 0 : (first + s - 1) / s;
  const int64_t last = (i + p) / s;
  *hi = last < out - 1 ? last + 1 : out;  // exclusive
}

template <int req>
struct PoolBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* dy, const T* x, const T* y, T* dx, PoolGeo g,
                                 int type, bool include_pad, bool cl, int lp) {
    using A = AccType<T>;
    const int64_t isz = g.in_size(), osz = g.out_size(), step = cl ? g.c : 1;
    int64_t plane, ii;
    SplitIndex(idx, isz, g.c, cl, &plane, &ii);
    const int64_t pos[3] = {ii / (g.in[1] * g.in[2]), (ii / g.in[2]) % g.in[1], ii % g.in[2]};
    const T* xc = x + PlaneBase(plane, isz, g.c, cl);
    const int64_t ybase = PlaneBase(plane, osz, g.c, cl);
    int64_t lo[3], hi[3];
    for (int i = 0; i < 3; ++i) Covering(pos[i], g.k[i], g.s[i], g.p[i], g.out[i], &lo[i], &hi[i]);
    A acc = 0;
    for (int64_t od = lo[0]; od < hi[0]; ++od)
      for (int64_t oh = lo[1]; oh < hi[1]; ++oh)
        for (int64_t ow = lo[2]; ow < hi[2]; ++ow) {
          const int64_t o[3] = {od, oh, ow};
          const int64_t oi = (od * g.out[1] + oh) * g.out[2] + ow;
          const Window w = MakeWindow(g, type, include_pad, o);
          const A grad = static_cast<A>(dy[ybase + oi * step]);
          if (type == kLpPool) {
            acc += static_cast<A>(grad * LpGrad(static_cast<A>(xc[ii * step]),
                                                static_cast<A>(y[ybase + oi * step]), lp));
            continue;
          }
          if (type != kMaxPool) {
            acc += static_cast<A>(grad / w.divisor);
            continue;
          }
          // the gradient goes to the first element of the window equal to the maximum
          const A target = static_cast<A>(y[ybase + oi * step]);
          int64_t first = -1;
          for (int64_t d = w.lo[0]; d < w.hi[0] && first < 0; ++d)
            for (int64_t h = w.lo[1]; h < w.hi[1] && first < 0; ++h)
              for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) {
                const int64_t e = (d * g.in[1] + h) * g.in[2] + c;
                if (static_cast<A>(xc[e * step]) == target) {
                  first = e;
                  break;
                }
              }
          if (first == ii) acc += grad;
        }
    AssignReq<req>(&dx[idx], acc);
  }
};

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_POOLING_KERNELS_H_
