/*! \brief GPU kernels of the unary math ops of elemwise_math_ops.h (their functors with xpu = gpu).
 */
#include "elemwise_kernels.h"
#include "elemwise_math_ops.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

#define SYMNET_GPU_UNARY_MATH(NAME, FWD, GRAD, GRAD_USE, DOC)                                  \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", UnaryCompute<mathf::FWD, gpu>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                         \
      .set_attr<FCompute>("FCompute<gpu>", UnaryGradCompute<mathf::GRAD, gpu>);
SYMNET_ELEMWISE_MATH_OPS(SYMNET_GPU_UNARY_MATH)

#define SYMNET_GPU_ROUNDING(NAME, FWD, DOC) \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", UnaryCompute<mathf::FWD, gpu>);
SYMNET_ELEMWISE_ROUNDING_OPS(SYMNET_GPU_ROUNDING)

}  // namespace ops
}  // namespace symnet
