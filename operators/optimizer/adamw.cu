/*! \brief GPU kernels of _adamw_update and _mp_adamw_update. */
#include "adamw.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_adamw_update).set_attr<FCompute>("FCompute<gpu>", AdamWCompute<false, gpu>);
SYMNET_REGISTER_OP(_mp_adamw_update).set_attr<FCompute>("FCompute<gpu>", AdamWCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
