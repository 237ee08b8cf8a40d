/*! \brief GPU kernels of tile and repeat: broadcast_to.h's view copy and reduction with
 *  xpu = gpu, through the views of tile_repeat.h. */
#include "src/device/kernel_launch.cuh"
#include "tile_repeat.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(tile).set_attr<FCompute>("FCompute<gpu>", BroadcastViewForward<gpu, TileView>);
SYMNET_REGISTER_OP(_backward_tile)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewBackward<gpu, TileView>);
SYMNET_REGISTER_OP(repeat).set_attr<FCompute>("FCompute<gpu>",
                                              BroadcastViewForward<gpu, RepeatView>);
SYMNET_REGISTER_OP(_backward_repeat)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewBackward<gpu, RepeatView>);

}  // namespace ops
}  // namespace symnet
