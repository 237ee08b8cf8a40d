/*! \brief GPU kernels of reverse and its gradient: reverse.h's strided copy with xpu = gpu. */
#include "reverse.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(reverse).set_attr<FCompute>("FCompute<gpu>", ReverseCompute<gpu>);
SYMNET_REGISTER_OP(_backward_reverse).set_attr<FCompute>("FCompute<gpu>", ReverseCompute<gpu>);

}  // namespace ops
}  // namespace symnet
