/*! \brief GPU kernels of the broadcast binary ops and of sum/mean (broadcast_binary.h, reduce.h). */
#include "../kernel_launch.cuh"
#include "broadcast_binary.h"
#include "reduce.h"

namespace symnet {
namespace ops {

#define SYMNET_GPU_BROADCAST(NAME, FUNCTOR, KIND)                                                       \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", BroadcastCompute<mathf::FUNCTOR, gpu>); \
  SYMNET_REGISTER_OP(_backward_##NAME).set_attr<FCompute>("FCompute<gpu>", BroadcastGradCompute<BGrad::KIND, gpu>);
SYMNET_BROADCAST_OPS(SYMNET_GPU_BROADCAST)

SYMNET_REGISTER_OP(sum).set_attr<FCompute>("FCompute<gpu>", ReduceCompute<false, gpu>);
SYMNET_REGISTER_OP(_backward_sum).set_attr<FCompute>("FCompute<gpu>", ReduceGradCompute<false, gpu>);
SYMNET_REGISTER_OP(mean).set_attr<FCompute>("FCompute<gpu>", ReduceCompute<true, gpu>);
SYMNET_REGISTER_OP(_backward_mean).set_attr<FCompute>("FCompute<gpu>", ReduceGradCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
