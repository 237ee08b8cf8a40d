/*! \brief GPU kernels of argmax, argmin and argmax_channel (argmax.h with xpu = gpu). */
#include "argmax.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(argmax).set_attr<FCompute>("FCompute<gpu>", ArgReduceCompute<true, gpu>);
SYMNET_REGISTER_OP(argmin).set_attr<FCompute>("FCompute<gpu>", ArgReduceCompute<false, gpu>);
SYMNET_REGISTER_OP(argmax_channel).set_attr<FCompute>("FCompute<gpu>", ArgmaxChannelCompute<gpu>);

}  // namespace ops
}  // namespace symnet
