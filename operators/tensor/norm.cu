/*! \brief GPU kernels of norm (norm.h's FCompute with xpu = gpu). */
#include "norm.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(norm).set_attr<FCompute>("FCompute<gpu>", NormCompute<gpu>);
SYMNET_REGISTER_OP(_backward_norm).set_attr<FCompute>("FCompute<gpu>", NormGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
