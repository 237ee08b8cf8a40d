/*!
 * \brief GPU kernels of the optimizer updates: the per-element math of update_kernels.h through
 *  Kernel<OP, gpu>. The fused multi_* ops launch one kernel per weight, all on the device's one
 *  stream, without a host sync.
 */
#include "src/device/kernel_launch.cuh"
#include "adam.h"
#include "multi_sgd.h"
#include "sgd.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(sgd_update).set_attr<FCompute>("FCompute<gpu>", SGDCompute<false, false, false, gpu>);
SYMNET_REGISTER_OP(sgd_mom_update).set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, false, false, gpu>);
SYMNET_REGISTER_OP(mp_sgd_update).set_attr<FCompute>("FCompute<gpu>", SGDCompute<false, true, false, gpu>);
SYMNET_REGISTER_OP(mp_sgd_mom_update).set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, true, false, gpu>);
SYMNET_REGISTER_OP(nag_mom_update).set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, false, true, gpu>);
SYMNET_REGISTER_OP(mp_nag_mom_update).set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, true, true, gpu>);

SYMNET_REGISTER_OP(multi_sgd_update).set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<false, false, gpu>);
SYMNET_REGISTER_OP(multi_sgd_mom_update).set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<true, false, gpu>);
SYMNET_REGISTER_OP(multi_mp_sgd_update).set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<false, true, gpu>);
SYMNET_REGISTER_OP(multi_mp_sgd_mom_update).set_attr<FCompute>("FCompute<gpu>", MultiSGDCompute<true, true, gpu>);

SYMNET_REGISTER_OP(adam_update).set_attr<FCompute>("FCompute<gpu>", AdamCompute<false, gpu>);
SYMNET_REGISTER_OP(mp_adam_update).set_attr<FCompute>("FCompute<gpu>", AdamCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
