/*! \brief GPU kernels of broadcast_to, broadcast_like and broadcast_axis: broadcast_to.h's view
 *  copy and reduction with xpu = gpu. */
#include "broadcast_to.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(broadcast_to)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewForward<gpu, OutputShapeView>);
SYMNET_REGISTER_OP(_backward_broadcast_to)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewBackward<gpu, OutputShapeView>);
SYMNET_REGISTER_OP(broadcast_like)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewForward<gpu, OutputShapeView>);
SYMNET_REGISTER_OP(_backward_broadcast_like)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewBackward<gpu, OutputShapeView>);
SYMNET_REGISTER_OP(broadcast_axis)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewForward<gpu, OutputShapeView>);
SYMNET_REGISTER_OP(_backward_broadcast_axis)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastViewBackward<gpu, OutputShapeView>);

}  // namespace ops
}  // namespace symnet
