/*! \brief GPU kernels of hard_sigmoid (hard_sigmoid.h with xpu = gpu). */
#include "hard_sigmoid.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(hard_sigmoid).set_attr<FCompute>("FCompute<gpu>", HardSigmoidCompute<gpu>);
SYMNET_REGISTER_OP(_backward_hard_sigmoid)
    .set_attr<FCompute>("FCompute<gpu>", HardSigmoidGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
