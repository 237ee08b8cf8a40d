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
  SYMNET_CHECK(ndim <= kMaxBroadcastDim)
      << "broadcasting supports at most " << kMaxBroadcastDim << " dimensions, got " << out;
  const Shape p = PadShape(in, ndim);
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    out_shape[d] = out[d];
    in_stride[d] = p[d] == 1 ? 0 : stride;
    stride *= p[d];
  }
}

BroadcastMap BroadcastMap::Transposed(const Shape& in, const std::vector<int>& axes) {
  BroadcastMap m(Shape{1}, Shape{1});
  m.ndim = in.ndim();
  SYMNET_CHECK(m.ndim <= kMaxBroadcastDim)
      << "transpose supports at most " << kMaxBroadcastDim << " dimensions, got " << in;
  int64_t in_stride[kMaxBroadcastDim];
  int64_t stride = 1;
  for (int d = m.ndim - 1; d >= 0; --d) {
    in_stride[d] = stride;
    stride *= in[d];
  }
  for (int d = 0; d < m.ndim; ++d) {
    m.out_shape[d] = in[axes[d]];
    m.in_stride[d] = in_stride[axes[d]];
  }
  return m;
}

ReduceDims MakeReduceDims(const Shape& src_shape, const Shape& dst_shape) {
  const int nd = src_shape.ndim();
  SYMNET_CHECK(nd <= kMaxBroadcastDim)
      << "reductions support at most " << kMaxBroadcastDim << " dimensions, got " << src_shape;
  const Shape dp = PadShape(dst_shape, nd);
  // split dims into kept (dst dim == src dim) and reduced (dst dim == 1 < src dim)
  int64_t stride[kMaxBroadcastDim];
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    stride[d] = s;
    s *= src_shape[d];
  }
  ReduceDims r;
  for (int d = 0; d < nd; ++d) {
    if (dp[d] == 1 && src_shape[d] != 1) {
      r.red_size[r.nred] = src_shape[d];
      r.red_stride[r.nred++] = stride[d];
      r.num_reduced *= src_shape[d];
    } else {
      r.kept_size[r.nkept] = src_shape[d];
      r.kept_stride[r.nkept++] = stride[d];
    }
  }
  return r;
}

}  // namespace ops
}  // namespace symnet
