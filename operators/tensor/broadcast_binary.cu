/*! \brief GPU kernels of the broadcast binary ops (broadcast_binary.h's FCompute with xpu = gpu).
 */
#include "binary_math_ops.h"
#include "broadcast_binary.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

#define SYMNET_GPU_BROADCAST(NAME, FUNCTOR)                    \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", \
                                              BroadcastCompute<mathf::FUNCTOR, gpu>);
SYMNET_GPU_BROADCAST(broadcast_add, plus)
SYMNET_GPU_BROADCAST(broadcast_sub, minus)
SYMNET_REGISTER_OP(_backward_broadcast_add)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastLinearGradCompute<false, gpu>);
SYMNET_REGISTER_OP(_backward_broadcast_sub)
    .set_attr<FCompute>("FCompute<gpu>", BroadcastLinearGradCompute<true, gpu>);

#define SYMNET_GPU_BROADCAST_WITH_GRAD(NAME, FUNCTOR) \
  SYMNET_GPU_BROADCAST(NAME, FUNCTOR)                 \
  SYMNET_REGISTER_OP(_backward_##NAME)                \
      .set_attr<FCompute>("FCompute<gpu>", BroadcastGradCompute<mathf::FUNCTOR##_grad, gpu>);
SYMNET_BROADCAST_PRODUCT_OPS(SYMNET_GPU_BROADCAST_WITH_GRAD)
#define SYMNET_GPU_BROADCAST_MATH(NAME, ALIAS, DOC) \
  SYMNET_GPU_BROADCAST_WITH_GRAD(broadcast_##NAME, NAME)
SYMNET_BINARY_MATH_OPS(SYMNET_GPU_BROADCAST_MATH)
#define SYMNET_GPU_BROADCAST_LOGIC(NAME, ALIAS, DOC) SYMNET_GPU_BROADCAST(broadcast_##NAME, NAME)
SYMNET_BINARY_LOGIC_OPS(SYMNET_GPU_BROADCAST_LOGIC)

}  // namespace ops
}  // namespace symnet
