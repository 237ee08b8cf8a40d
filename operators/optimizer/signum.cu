/*! \brief GPU kernels of signsgd_update and signum_update. */
#include "signum.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(signsgd_update).set_attr<FCompute>("FCompute<gpu>", SignumCompute<false, gpu>);
SYMNET_REGISTER_OP(signum_update).set_attr<FCompute>("FCompute<gpu>", SignumCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
