/*!
 * \brief where(condition, x, y) (MXNet 1.x): x where the condition is non-zero, else y. The
 *  condition has x's shape, or is 1-D over x's first dim (a whole row per entry). Its gradient
 *  sends dy to x or to y by the same test; the condition gets none.
 *
 *  A condition is "non-zero" by its bits: for the float dtypes any bit besides the sign (so -0.0
 *  is false and NaN true, as a comparison with 0 says), for the others any bit. The kernels thus
 *  read the condition as an unsigned integer of its size, whatever its dtype.
 */
#ifndef SYMNET_OPERATORS_TENSOR_WHERE_H_
#define SYMNET_OPERATORS_TENSOR_WHERE_H_

#include <vector>

#include "bits_util.h"

namespace symnet {
namespace ops {

/*! \brief The bits of a condition element that make it non-zero (see the file comment). */
inline uint64_t TruthMask(DType t) {
  const size_t bits = 8 * DTypeSize(t);
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return IsFloatType(t) ? all >> 1 : all;
}

/*! \brief Condition elements per condition entry: 1, or a row of x for a 1-D condition. */
inline int64_t WhereInner(const TBlob& cond, const TBlob& x) {
  return cond.ndim() == x.ndim() || x.shape_[0] == 0 ? 1 : x.Size() / x.shape_[0];
}

template <int req>
struct WhereKernel {
  template <typename T, typename C>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const C* cond, const T* x, const T* y,
                                 int64_t inner, C mask) {
    const bool c = (cond[i / inner] & mask) != 0;
    AssignReq<req>(&out[i], static_cast<AccType<T>>(c ? x[i] : y[i]));
  }
};

/*! \brief dx = c ? dy : 0 and dy_y = c ? 0 : dy; a null pointer is a gradient not wanted. The
 *  requests are runtime flags: one instantiation per dtype pair serves every combination. */
struct WhereGradKernel {
  template <typename T, typename C>
  SYMNET_XINLINE static void Map(int64_t i, T* gx, T* gy, const T* dy, const C* cond, int64_t inner,
                                 C mask, bool add_x, bool add_y) {
    using A = AccType<T>;
    const bool c = (cond[i / inner] & mask) != 0;
    const A g = static_cast<A>(dy[i]);
    if (gx) gx[i] = T((add_x ? static_cast<A>(gx[i]) : A(0)) + (c ? g : A(0)));
    if (gy) gy[i] = T((add_y ? static_cast<A>(gy[i]) : A(0)) + (c ? A(0) : g));
  }
};

template <typename xpu>
void WhereForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const TBlob &cond = in[0], &x = in[1], &y = in[2];
  const int64_t inner = WhereInner(cond, x);
  SYMNET_BITS_TYPE_SWITCH(cond.dtype_, C, {
    const C mask = static_cast<C>(TruthMask(cond.dtype_));
    SYMNET_COPY_REQ_SWITCH(out[0].dtype_, req[0], T, Req, {
      Kernel<WhereKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), cond.dptr<C>(),
                                            x.dptr<T>(), y.dptr<T>(), inner, mask);
    });
  });
}

/*! \brief Inputs (dy, condition), outputs (dx, dy of y). */
template <typename xpu>
void WhereBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob &dy = in[0], &cond = in[1];
  const bool want_x = req[0] != kNullOp, want_y = req[1] != kNullOp;
  if ((!want_x && !want_y) || dy.Size() == 0) return;
  const int64_t inner = WhereInner(cond, dy);
  SYMNET_BITS_TYPE_SWITCH(cond.dtype_, C, {
    const C mask = static_cast<C>(TruthMask(cond.dtype_));
    SYMNET_FLOAT_TYPE_SWITCH(dy.dtype_, T, {
      Kernel<WhereGradKernel, xpu>::Launch(
          dy.Size(), want_x ? out[0].dptr<T>() : nullptr, want_y ? out[1].dptr<T>() : nullptr,
          dy.dptr<T>(), cond.dptr<C>(), inner, mask, req[0] == kAddTo, req[1] == kAddTo);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_WHERE_H_
