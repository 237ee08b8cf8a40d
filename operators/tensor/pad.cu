/*! \brief Pad on a GPU: pad.h's gather kernels with xpu = gpu. */
#include "pad.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(Pad).set_attr<FCompute>("FCompute<gpu>", PadForward<gpu>);
SYMNET_REGISTER_OP(_backward_Pad).set_attr<FCompute>("FCompute<gpu>", PadBackward<gpu>);

}  // namespace ops
}  // namespace symnet
