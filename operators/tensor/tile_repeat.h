/*! \brief tile and repeat as broadcasts (broadcast_to.h): tile's output is the input broadcast
 *  along a new outer dim per input dim, repeat's along a new inner dim after the repeated axis. */
#ifndef SYMNET_OPERATORS_TENSOR_TILE_REPEAT_H_
#define SYMNET_OPERATORS_TENSOR_TILE_REPEAT_H_

#include "broadcast_to.h"

namespace symnet {
namespace ops {

/*! \brief tile: input (s0, s1, ...) as (1, s0, 1, s1, ...), output as (r0, s0, r1, s1, ...). */
BroadcastView TileView(const NodeAttrs& attrs, const Shape& in, const Shape& out);
/*! \brief repeat: input (outer, n, inner) as (outer, n, 1, inner), output as
 *  (outer, n, repeats, inner); a flattened repeat has outer = inner = 1. */
BroadcastView RepeatView(const NodeAttrs& attrs, const Shape& in, const Shape& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_TILE_REPEAT_H_
