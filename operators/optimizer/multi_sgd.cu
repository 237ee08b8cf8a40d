/*! \brief GPU kernels of the fused multi_*sgd* updates: one kernel per weight, all on the
 *  device's one stream, without a host sync. */
#include "multi_sgd.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(multi_sgd_update)
    .set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<false, false, gpu>);
SYMNET_REGISTER_OP(multi_sgd_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<true, false, gpu>);
SYMNET_REGISTER_OP(multi_mp_sgd_update)
    .set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<false, true, gpu>);
SYMNET_REGISTER_OP(multi_mp_sgd_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<true, true, gpu>);

}  // namespace ops
}  // namespace symnet
