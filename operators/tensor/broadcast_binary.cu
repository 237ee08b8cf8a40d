/*! \brief GPU kernels of the broadcast binary ops (broadcast_binary.h's FCompute with xpu = gpu).
 */
#include "broadcast_binary.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

#define SYMNET_GPU_BROADCAST(NAME, FUNCTOR, KIND)                                     \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>",                        \
                                              BroadcastCompute<mathf::FUNCTOR, gpu>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                \
      .set_attr<FCompute>("FCompute<gpu>", BroadcastGradCompute<BGrad::KIND, gpu>);
SYMNET_BROADCAST_OPS(SYMNET_GPU_BROADCAST)

}  // namespace ops
}  // namespace symnet
