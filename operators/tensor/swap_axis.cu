/*! \brief GPU kernels of SwapAxis and its gradient: transpose.h's strided copy with xpu = gpu. */
#include "src/device/kernel_launch.cuh"
#include "swap_axis.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(SwapAxis).set_attr<FCompute>("FCompute<gpu>", SwapAxisCompute<gpu>);
SYMNET_REGISTER_OP(_backward_SwapAxis).set_attr<FCompute>("FCompute<gpu>", SwapAxisCompute<gpu>);

}  // namespace ops
}  // namespace symnet
