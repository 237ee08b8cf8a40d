/*!
 * \brief Pooling on a GPU (channels-first): one thread per output in forward; in backward one
 *  thread per input element gathers from the windows that contain it (no atomics, so the
 *  result is deterministic). Max pooling's gradient goes to the first maximum of each window,
 *  as on the CPU.
 */
#include <limits>

#include "../kernel_launch.cuh"
#include "pooling.h"

namespace symnet {
namespace ops {

namespace {

template <int req>
struct PoolForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* x, T* y, PoolGeo g, int type, bool include_pad) {
    using A = AccType<T>;
    const int64_t osz = g.out_size(), oi = idx % osz;
    const T* xc = x + (idx / osz) * g.in_size();
    const int64_t o[3] = {oi / (g.out[1] * g.out[2]), (oi / g.out[2]) % g.out[1], oi % g.out[2]};
    const Window w = MakeWindow(g, type, include_pad, o);
    A v = type == kMaxPool ? -INFINITY : A(0);
    for (int64_t d = w.lo[0]; d < w.hi[0]; ++d)
      for (int64_t h = w.lo[1]; h < w.hi[1]; ++h)
        for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) {
          const A e = static_cast<A>(xc[(d * g.in[1] + h) * g.in[2] + c]);
          v = type == kMaxPool ? (e > v ? e : v) : v + e;
        }
    if (type != kMaxPool) v = static_cast<A>(v / w.divisor);
    AssignReq<req>(&y[idx], v);
  }
};

/*! \brief Output positions along one dim whose windows contain input position i. */
SYMNET_XINLINE void Covering(int64_t i, int64_t k, int64_t s, int64_t p, int64_t out, int64_t* lo, int64_t* hi) {
  const int64_t first = i + p - k + 1;
  *lo = first <= 0 ? 0 : (first + s - 1) / s;
  const int64_t last = (i + p) / s;
  *hi = last < out - 1 ? last + 1 : out;  // exclusive
}

template <int req>
struct PoolBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* dy, const T* x, const T* y, T* dx, PoolGeo g,
                                 int type, bool include_pad) {
    using A = AccType<T>;
    const int64_t isz = g.in_size(), osz = g.out_size(), ii = idx % isz, nc = idx / isz;
    const int64_t pos[3] = {ii / (g.in[1] * g.in[2]), (ii / g.in[2]) % g.in[1], ii % g.in[2]};
    const T* xc = x + nc * isz;
    int64_t lo[3], hi[3];
    for (int i = 0; i < 3; ++i) Covering(pos[i], g.k[i], g.s[i], g.p[i], g.out[i], &lo[i], &hi[i]);
    A acc = 0;
    for (int64_t od = lo[0]; od < hi[0]; ++od)
      for (int64_t oh = lo[1]; oh < hi[1]; ++oh)
        for (int64_t ow = lo[2]; ow < hi[2]; ++ow) {
          const int64_t o[3] = {od, oh, ow};
          const int64_t oi = (od * g.out[1] + oh) * g.out[2] + ow;
          const Window w = MakeWindow(g, type, include_pad, o);
          const A grad = static_cast<A>(dy[nc * osz + oi]);
          if (type != kMaxPool) {
            acc += static_cast<A>(grad / w.divisor);
            continue;
          }
          // the gradient goes to the first element of the window equal to the maximum
          const A target = static_cast<A>(y[nc * osz + oi]);
          int64_t first = -1;
          for (int64_t d = w.lo[0]; d < w.hi[0] && first < 0; ++d)
            for (int64_t h = w.lo[1]; h < w.hi[1] && first < 0; ++h)
              for (int64_t c = w.lo[2]; c < w.hi[2]; ++c) {
                const int64_t e = (d * g.in[1] + h) * g.in[2] + c;
                if (static_cast<A>(xc[e]) == target) {
                  first = e;
                  break;
                }
              }
          if (first == ii) acc += grad;
        }
    AssignReq<req>(&dx[idx], acc);
  }
};

void PoolingGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const PoolGeo g = MakeGeo(p, in[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<PoolForwardKernel<Req>, gpu>::Launch(g.n * g.c * g.out_size(), in[0].dptr<T>(), out[0].dptr<T>(), g,
                                                  p.pool_type, IncludePad(p));
    });
  });
}

/*! \brief Inputs (dy, x, y); output dx. */
void PoolingGradGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const PoolGeo g = MakeGeo(p, in[1].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<PoolBackwardKernel<Req>, gpu>::Launch(g.n * g.c * g.in_size(), in[0].dptr<T>(), in[1].dptr<T>(),
                                                   in[2].dptr<T>(), out[0].dptr<T>(), g, p.pool_type,
                                                   IncludePad(p));
    });
  });
}

}  // namespace

SYMNET_REGISTER_OP(Pooling).set_attr<FCompute>("FCompute<gpu>", PoolingGPU);
SYMNET_REGISTER_OP(_backward_Pooling).set_attr<FCompute>("FCompute<gpu>", PoolingGradGPU);

}  // namespace ops
}  // namespace symnet
