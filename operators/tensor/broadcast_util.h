/*! \brief NumPy-style broadcasting: shape rule, strided index maps, broadcast and reduce loops. */
#ifndef SYMNET_OPERATORS_TENSOR_BROADCAST_UTIL_H_
#define SYMNET_OPERATORS_TENSOR_BROADCAST_UTIL_H_

#include <vector>

#include "../kernel_launch.h"
#include "../operator_common.h"

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

/*!
 * \brief dst (shape `dst_shape`) = sum of src (shape `src_shape`) over the broadcast dims, i.e.
 *  the adjoint of broadcasting dst to src. Each dst element sums a sub-grid: parallel over dst.
 */
template <typename T>
void ReduceToShape(const T* src, const Shape& src_shape, T* dst, const Shape& dst_shape,
                   OpReqType req, double scale = 1.0);

/*! \brief dst (shape `dst_shape`) = src (shape `src_shape`) broadcast, times scale. */
template <typename T>
void BroadcastToShape(const T* src, const Shape& src_shape, T* dst, const Shape& dst_shape,
                      OpReqType req, double scale = 1.0);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BROADCAST_UTIL_H_
