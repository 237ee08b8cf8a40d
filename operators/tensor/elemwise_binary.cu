/*! \brief GPU kernels of elemwise_add/sub/mul/div and the mul/div gradients. */
#include "elemwise_kernels.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(elemwise_add)
    .set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::plus, gpu>);
SYMNET_REGISTER_OP(elemwise_sub)
    .set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::minus, gpu>);
SYMNET_REGISTER_OP(elemwise_mul)
    .set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::mul, gpu>);
SYMNET_REGISTER_OP(elemwise_div)
    .set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::div, gpu>);
SYMNET_REGISTER_OP(_backward_mul)
    .set_attr<FCompute>("FCompute<gpu>", MulDivGradCompute<false, gpu>);
SYMNET_REGISTER_OP(_backward_div).set_attr<FCompute>("FCompute<gpu>", MulDivGradCompute<true, gpu>);

}  // namespace ops
}  // namespace symnet
