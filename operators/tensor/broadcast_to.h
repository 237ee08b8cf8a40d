/*!
 * \brief The ops whose output repeats input elements in a pattern a broadcast can express:
 *  broadcast_to, broadcast_like, broadcast_axis (broadcast_to.cc) and tile, repeat
 *  (tile_repeat.cc). Each op names a BroadcastView: its input and output seen as two shapes of
 *  one ndim where every input dim equals the output dim or is 1. The forward is then
 *  BroadcastToShape and the gradient ReduceToShape (broadcast_util.h), on the CPU and a GPU.
 */
#ifndef SYMNET_OPERATORS_TENSOR_BROADCAST_TO_H_
#define SYMNET_OPERATORS_TENSOR_BROADCAST_TO_H_

#include <vector>

#include "broadcast_util.h"

namespace symnet {
namespace ops {

/*! \brief The input as `src`, the output as `dst`: equal ndims, src[d] == dst[d] or 1. */
struct BroadcastView {
  Shape src, dst;
};

/*!
 * \brief The same view with fewer dims: dims of size 1 on both sides are dropped and runs of
 *  adjacent dims of one kind (copied, or broadcast from 1) are merged, so deep or tiled shapes
 *  stay within kMaxBroadcastDim and the index maps do less arithmetic.
 */
BroadcastView CompactView(const BroadcastView& v);

/*! \brief An op's view for a forward input shape `in` and output shape `out`. */
using BroadcastViewFn = BroadcastView (*)(const NodeAttrs& attrs, const Shape& in,
                                          const Shape& out);

/*! \brief The view of broadcast_to, broadcast_like and broadcast_axis: the shapes themselves. */
inline BroadcastView OutputShapeView(const NodeAttrs&, const Shape& in, const Shape& out) {
  return {in, out};
}

/*! \brief Forward: out (req)= in repeated as the view says. A copy, so any dtype. */
template <typename xpu, BroadcastViewFn view_of>
void BroadcastViewForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const BroadcastView v = CompactView(view_of(attrs, in[0].shape_, out[0].shape_));
  SYMNET_TYPE_SWITCH(out[0].dtype_, T, {
    BroadcastToShape<xpu>(in[0].dptr<T>(), v.src, out[0].dptr<T>(), v.dst, req[0]);
  });
}

/*!
 * \brief Gradient, input (dy), output dx of the forward input's shape: each dx element is the
 *  sum of dy over the positions it was copied to (zero when it was copied nowhere, e.g. tile
 *  with a rep of 0).
 */
template <typename xpu, BroadcastViewFn view_of>
void BroadcastViewBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const BroadcastView v = CompactView(view_of(attrs, out[0].shape_, in[0].shape_));
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    ReduceToShape<xpu>(in[0].dptr<T>(), v.dst, out[0].dptr<T>(), v.src, req[0]);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BROADCAST_TO_H_
