/*! \brief GPU kernels of Activation (activation.h's FCompute with xpu = gpu). */
#include "activation.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(Activation).set_attr<FCompute>("FCompute<gpu>", ActivationCompute<gpu>);
SYMNET_REGISTER_OP(_backward_Activation)
    .set_attr<FCompute>("FCompute<gpu>", ActivationGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
