/*! \brief GPU kernels of elemwise_add/sub/mul/div, the binary math ops and their gradients. */
#include "binary_math_ops.h"
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
    .set_attr<FCompute>("FCompute<gpu>", BinaryGradCompute<mathf::mul_grad, gpu>);
SYMNET_REGISTER_OP(_backward_div)
    .set_attr<FCompute>("FCompute<gpu>", BinaryGradCompute<mathf::div_grad, gpu>);

#define SYMNET_GPU_BINARY_MATH(NAME, ALIAS, DOC)                                   \
  SYMNET_REGISTER_OP(_##NAME).set_attr<FCompute>("FCompute<gpu>",                  \
                                                 BinaryCompute<mathf::NAME, gpu>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                             \
      .set_attr<FCompute>("FCompute<gpu>", BinaryGradCompute<mathf::NAME##_grad, gpu>);
SYMNET_BINARY_MATH_OPS(SYMNET_GPU_BINARY_MATH)

#define SYMNET_GPU_BINARY_LOGIC(NAME, ALIAS, DOC) \
  SYMNET_REGISTER_OP(_##NAME).set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::NAME, gpu>);
SYMNET_BINARY_LOGIC_OPS(SYMNET_GPU_BINARY_LOGIC)

}  // namespace ops
}  // namespace symnet
