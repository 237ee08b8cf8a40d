/*! \brief GPU kernels of sum and mean (reduce.h's FCompute with xpu = gpu). */
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

}  // namespace ops
}  // namespace symnet
