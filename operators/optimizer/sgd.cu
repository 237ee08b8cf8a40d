/*! \brief GPU kernels of sgd_update, sgd_mom_update, nag_mom_update and their mp_ forms: the
 *  per-element math of update_kernels.h through Kernel<OP, gpu>. */
#include "sgd.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(sgd_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDCompute<false, false, false, gpu>);
SYMNET_REGISTER_OP(sgd_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, false, false, gpu>);
SYMNET_REGISTER_OP(mp_sgd_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDCompute<false, true, false, gpu>);
SYMNET_REGISTER_OP(mp_sgd_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, true, false, gpu>);
SYMNET_REGISTER_OP(nag_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, false, true, gpu>);
SYMNET_REGISTER_OP(mp_nag_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDCompute<true, true, true, gpu>);

}  // namespace ops
}  // namespace symnet
