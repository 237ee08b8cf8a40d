/*! \brief GPU kernels of lamb_update_phase1/2 and mp_lamb_update_phase1/2. */
#include "lamb.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(lamb_update_phase1)
    .set_attr<FCompute>("FCompute<gpu>", LambPhase1Compute<false, gpu>);
SYMNET_REGISTER_OP(mp_lamb_update_phase1)
    .set_attr<FCompute>("FCompute<gpu>", LambPhase1Compute<true, gpu>);
SYMNET_REGISTER_OP(lamb_update_phase2)
    .set_attr<FCompute>("FCompute<gpu>", LambPhase2Compute<false, gpu>);
SYMNET_REGISTER_OP(mp_lamb_update_phase2)
    .set_attr<FCompute>("FCompute<gpu>", LambPhase2Compute<true, gpu>);

}  // namespace ops
}  // namespace symnet
