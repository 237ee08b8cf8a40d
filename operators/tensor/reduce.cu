/*! \brief GPU kernels of the reductions (reduce.h's FCompute with xpu = gpu). */
#include "reduce.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(sum).set_attr<FCompute>("FCompute<gpu>", ReduceCompute<false, gpu>);
SYMNET_REGISTER_OP(_backward_sum)
    .set_attr<FCompute>("FCompute<gpu>", ReduceGradCompute<false, gpu>);
SYMNET_REGISTER_OP(mean).set_attr<FCompute>("FCompute<gpu>", ReduceCompute<true, gpu>);
SYMNET_REGISTER_OP(_backward_mean)
    .set_attr<FCompute>("FCompute<gpu>", ReduceGradCompute<true, gpu>);

#define SYMNET_GPU_REDUCE_AXES(NAME, REDUCER, GRAD, DOC)                                         \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", ReduceAxesCompute<REDUCER, gpu>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                           \
      .set_attr<FCompute>("FCompute<gpu>", ReduceAxesGradCompute<GRAD, gpu>);
SYMNET_REDUCE_AXES_OPS(SYMNET_GPU_REDUCE_AXES)

}  // namespace ops
}  // namespace symnet
