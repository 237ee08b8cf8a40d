/*! \brief GPU kernels of adam_update and mp_adam_update. */
#include "adam.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(adam_update).set_attr<FCompute>("FCompute<gpu>", AdamCompute<false, gpu>);
SYMNET_REGISTER_OP(mp_adam_update).set_attr<FCompute>("FCompute<gpu>", AdamCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
