/*! \brief GPU kernels of stack and its gradient: stack.h's row copies with xpu = gpu. */
#include "src/device/kernel_launch.cuh"
#include "stack.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(stack).set_attr<FCompute>("FCompute<gpu>", StackCompute<gpu>);
SYMNET_REGISTER_OP(_backward_stack).set_attr<FCompute>("FCompute<gpu>", StackGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
