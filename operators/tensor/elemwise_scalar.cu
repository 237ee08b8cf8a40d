/*! \brief GPU kernels of the scalar ops of elemwise_scalar.h (x + s, s / x, ...). */
#include "elemwise_kernels.h"
#include "elemwise_scalar.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

#define SYMNET_GPU_SCALAR(NAME, FUNCTOR) \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", ScalarCompute<mathf::FUNCTOR, gpu>);
SYMNET_SCALAR_OPS(SYMNET_GPU_SCALAR)
#define SYMNET_GPU_SCALAR_GRAD(NAME, GRAD) \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", ScalarGradCompute<mathf::GRAD, gpu>);
SYMNET_SCALAR_GRAD_OPS(SYMNET_GPU_SCALAR_GRAD)

}  // namespace ops
}  // namespace symnet
