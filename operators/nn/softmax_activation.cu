/*! \brief GPU kernels of SoftmaxActivation: softmax.h's row kernels with xpu = gpu. */
#include "softmax_activation.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(SoftmaxActivation)
    .set_attr<FCompute>("FCompute<gpu>", SoftmaxActivationForward<gpu>);
SYMNET_REGISTER_OP(_backward_SoftmaxActivation)
    .set_attr<FCompute>("FCompute<gpu>", SoftmaxActivationBackward<gpu>);

}  // namespace ops
}  // namespace symnet
