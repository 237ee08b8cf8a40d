/*! \brief GPU kernels of rmsprop_update and rmspropalex_update. */
#include "rmsprop.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(rmsprop_update).set_attr<FCompute>("FCompute<gpu>", RMSPropCompute<false, gpu>);
SYMNET_REGISTER_OP(rmspropalex_update)
    .set_attr<FCompute>("FCompute<gpu>", RMSPropCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
