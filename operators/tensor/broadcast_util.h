/*! \brief NumPy-style broadcasting: shape rule, strided index maps, broadcast and reduce loops. */
#ifndef SYMNET_OPERATORS_TENSOR_BROADCAST_UTIL_H_
#define SYMNET_OPERATORS_TENSOR_BROADCAST_UTIL_H_

#include <type_traits>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

constexpr int kMaxBroadcastDim = 8;

/*! \brief `s` left-padded with 1s to `ndim` dims. */
Shape PadShape(const Shape& s, int ndim);

/*! \brief The broadcast of two shapes; throws InferError-compatible Error when incompatible. */
bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out);

/*!
 * \brief Index map from an output of shape `out` to an input of shape `in` (padded to the same
 *  ndim; dims of size 1 broadcast): in_offset(i) = sum_d coord_d(i) * stride_d.
 */
struct BroadcastMap {
  int ndim = 0;
  int64_t out_shape[kMaxBroadcastDim];
  int64_t in_stride[kMaxBroadcastDim];

  BroadcastMap(const Shape& in, const Shape& out);
  /*! \brief The map of a transpose: output dim d is input dim axes[d] (axes a permutation). */
  static BroadcastMap Transposed(const Shape& in, const std::vector<int>& axes);
  SYMNET_XINLINE int64_t InOffset(int64_t i) const {
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t c = i % out_shape[d];
      i /= out_shape[d];
      off += c * in_stride[d];
    }
    return off;
  }
};

/*! \brief How each element of a reduced array (dst) finds its sub-grid in the source. */
struct ReduceDims {
  int nkept = 0, nred = 0;
  int64_t kept_size[kMaxBroadcastDim], kept_stride[kMaxBroadcastDim];
  int64_t red_size[kMaxBroadcastDim], red_stride[kMaxBroadcastDim];
  int64_t num_reduced = 1;
  /*! \brief Source offset of dst element j's first term. */
  SYMNET_XINLINE int64_t KeptOffset(int64_t j) const {
    return Offset(j, nkept, kept_size, kept_stride);
  }
  /*! \brief Offset of term i (0 <= i < num_reduced) from its dst element's first term. */
  SYMNET_XINLINE int64_t ReducedOffset(int64_t i) const {
    return Offset(i, nred, red_size, red_stride);
  }

 private:
  /*! \brief sum_k digit_k(i) * stride[k], digits of i in the mixed radix `size` (last fastest). */
  SYMNET_XINLINE static int64_t Offset(int64_t i, int n, const int64_t* size,
                                       const int64_t* stride) {
    int64_t off = 0;
    for (int k = n - 1; k >= 0; --k) {
      off += (i % size[k]) * stride[k];
      i /= size[k];
    }
    return off;
  }
};
ReduceDims MakeReduceDims(const Shape& src_shape, const Shape& dst_shape);

/*! \brief A reduction as a fold in double (reductions of many float32 terms keep their
 *  precision): Init, Add each term, Finish. The sum here; max, prod, norms... in reduce.h. */
struct SumReducer {
  SYMNET_XINLINE static double Init() { return 0.0; }
  SYMNET_XINLINE static void Add(double* acc, double v) { *acc += v; }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};

/*! \brief dst[j] (+)= scale * R's fold of src over dst element j's sub-grid. */
template <typename R, int req>
struct ReduceAxesKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t j, const T* src, T* dst, ReduceDims r, double scale) {
    // an empty src (a zero-size batch) has no data pointer: no offset may be applied to it
    const T* base = r.num_reduced > 0 ? src + r.KeptOffset(j) : src;
    double acc = R::Init();
    for (int64_t i = 0; i < r.num_reduced; ++i)
      R::Add(&acc, static_cast<double>(static_cast<AccType<T>>(base[r.ReducedOffset(i)])));
    AssignReq<req>(&dst[j], static_cast<AccType<T>>(R::Finish(acc) * scale));
  }
};
template <int req>
using ReduceToShapeKernel = ReduceAxesKernel<SumReducer, req>;

template <int req>
struct BroadcastToShapeKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, const T* src, T* dst, BroadcastMap m, A scale) {
    AssignReq<req>(&dst[i], static_cast<A>(src[m.InOffset(i)]) * scale);
  }
};

/*!
 * \brief The GPU's reduction for few outputs and many inputs each (a full sum, a bias gradient):
 *  blocks of threads share each output. Defined (and instantiated for the float types) in
 * broadcast_util.cu.
 */
template <typename T>
void ReduceToShapeBlocks(const T* src, const ReduceDims& r, T* dst, int64_t n, OpReqType req,
                         double scale);

/*!
 * \brief dst (shape `dst_shape`) = sum of src (shape `src_shape`) over the broadcast dims, i.e.
 *  the adjoint of broadcasting dst to src. Each dst element sums a sub-grid: parallel over dst
 *  (on a GPU, over blocks too when there are few dst elements with many terms each).
 */
template <typename xpu = cpu, typename T>
void ReduceToShape(const T* src, const Shape& src_shape, T* dst, const Shape& dst_shape,
                   OpReqType req, double scale = 1.0) {
  const ReduceDims r = MakeReduceDims(src_shape, dst_shape);
  if constexpr (std::is_same<xpu, gpu>::value) {
    if (req != kNullOp && dst_shape.Size() <= 4096 && r.num_reduced >= 2048) {
      ReduceToShapeBlocks(src, r, dst, dst_shape.Size(), req, scale);
      return;
    }
  }
  SYMNET_REQ_SWITCH(req, Req, {
    Kernel<ReduceToShapeKernel<Req>, xpu>::LaunchCost(dst_shape.Size(), r.num_reduced, src, dst, r,
                                                      scale);
  });
}

/*! \brief dst (shape `dst_shape`) = src (shape `src_shape`) broadcast, times scale. */
template <typename xpu = cpu, typename T>
void BroadcastToShape(const T* src, const Shape& src_shape, T* dst, const Shape& dst_shape,
                      OpReqType req, double scale = 1.0) {
  const BroadcastMap m(src_shape, dst_shape);
  SYMNET_REQ_SWITCH(req, Req, {
    Kernel<BroadcastToShapeKernel<Req>, xpu>::Launch(dst_shape.Size(), src, dst, m,
                                                     static_cast<AccType<T>>(scale));
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BROADCAST_UTIL_H_
