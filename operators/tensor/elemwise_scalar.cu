/*! \brief GPU kernels of the scalar ops of elemwise_scalar.h (x + s, s / x, ...). */
#include "elemwise_kernels.h"
#include "elemwise_scalar.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

#define SYMNET_GPU_SCALAR(NAME, FUNCTOR) \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", ScalarCompute<mathf::FUNCTOR, gpu>);
SYMNET_SCALAR_OPS(SYMNET_GPU_SCALAR)
SYMNET_REGISTER_OP(_backward_rdiv_scalar)
    .set_attr<FCompute>("FCompute<gpu>", ScalarGradCompute<mathf::rdiv_grad, gpu>);

}  // namespace ops
}  // namespace symnet
