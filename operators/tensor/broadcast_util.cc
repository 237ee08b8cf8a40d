/*! \brief Broadcasting helpers (see broadcast_util.h). */
#include "broadcast_util.h"

namespace symnet {
namespace ops {

Shape PadShape(const Shape& s, int ndim) {
  Shape out = Shape::Scalar();
  for (int i = 0; i < ndim - s.ndim(); ++i) out.push_back(1);
  for (int i = 0; i < s.ndim(); ++i) out.push_back(s[i]);
  return out;
}

bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  if (!a.is_known() || !b.is_known()) return false;
  const int nd = std::max(a.ndim(), b.ndim());
  const Shape pa = PadShape(a, nd), pb = PadShape(b, nd);
  Shape o = Shape::Scalar();
  for (int i = 0; i < nd; ++i) {
    if (pa[i] == pb[i] || pb[i] == 1) {
      o.push_back(pa[i]);
    } else if (pa[i] == 1) {
      o.push_back(pb[i]);
    } else {
      SYMNET_THROW << "operands could not be broadcast together with shapes " << a << " and " << b;
    }
  }
  *out = o;
  return true;
}

BroadcastMap::BroadcastMap(const Shape& in, const Shape& out) {
  ndim = out.ndim();
  SYMNET_CHECK(ndim <= kMaxBroadcastDim) << "broadcasting supports at most " << kMaxBroadcastDim
                                         << " dimensions, got " << out;
  const Shape p = PadShape(in, ndim);
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    out_shape[d] = out[d];
    in_stride[d] = p[d] == 1 ? 0 : stride;
    stride *= p[d];
  }
}

template <typename T>
void ReduceToShape(const T* src, const Shape& src_shape, T* dst, const Shape& dst_shape,
                   OpReqType req, double scale) {
  if (req == kNullOp) return;
  const int nd = src_shape.ndim();
  const Shape dp = PadShape(dst_shape, nd);
  // split dims into kept (dst dim == src dim) and reduced (dst dim == 1 < src dim)
  int64_t src_stride[kMaxBroadcastDim];
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    src_stride[d] = s;
    s *= src_shape[d];
  }
  std::vector<int> kept, reduced;
  for (int d = 0; d < nd; ++d) (dp[d] == 1 && src_shape[d] != 1 ? reduced : kept).push_back(d);
  int64_t num_reduced = 1;
  for (int d : reduced) num_reduced *= src_shape[d];
  const int64_t n = dst_shape.Size();
  using A = AccType<T>;
#pragma omp parallel for if (n * num_reduced >= kOmpMinWork)
  for (int64_t j = 0; j < n; ++j) {
    int64_t base = 0, rem = j;
    for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
      const int d = kept[k];
      base += (rem % src_shape[d]) * src_stride[d];
      rem /= src_shape[d];
    }
    double acc = 0;  // double: reductions of many float32 values keep their precision
    for (int64_t r = 0; r < num_reduced; ++r) {
      int64_t off = base, rr = r;
      for (int k = static_cast<int>(reduced.size()) - 1; k >= 0; --k) {
        const int d = reduced[k];
        off += (rr % src_shape[d]) * src_stride[d];
        rr /= src_shape[d];
      }
      acc += static_cast<double>(static_cast<A>(src[off]));
    }
    const A v = static_cast<A>(acc * scale);
    if (req == kAddTo) {
      AssignReq<kAddTo>(&dst[j], v);
    } else {
      AssignReq<kWriteTo>(&dst[j], v);
    }
  }
}

template <typename T>
void BroadcastToShape(const T* src, const Shape& src_shape, T* dst, const Shape& dst_shape,
                      OpReqType req, double scale) {
  if (req == kNullOp) return;
  const BroadcastMap map(src_shape, dst_shape);
  const int64_t n = dst_shape.Size();
  using A = AccType<T>;
  const A sc = static_cast<A>(scale);
#pragma omp parallel for if (n >= kOmpMinWork)
  for (int64_t i = 0; i < n; ++i) {
    const A v = static_cast<A>(src[map.InOffset(i)]) * sc;
    if (req == kAddTo) {
      AssignReq<kAddTo>(&dst[i], v);
    } else {
      AssignReq<kWriteTo>(&dst[i], v);
    }
  }
}

#define SYMNET_INSTANTIATE_BROADCAST(T)                                                        \
  template void ReduceToShape<T>(const T*, const Shape&, T*, const Shape&, OpReqType, double); \
  template void BroadcastToShape<T>(const T*, const Shape&, T*, const Shape&, OpReqType, double);
SYMNET_INSTANTIATE_BROADCAST(float)
SYMNET_INSTANTIATE_BROADCAST(double)
SYMNET_INSTANTIATE_BROADCAST(half_t)
SYMNET_INSTANTIATE_BROADCAST(bf16_t)

}  // namespace ops
}  // namespace symnet
