/*! \brief GPU kernels of take, pick and one_hot: indexing.h's kernels with xpu = gpu. */
#include "indexing.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(take).set_attr<FCompute>("FCompute<gpu>", TakeForward<gpu>);
SYMNET_REGISTER_OP(_backward_take).set_attr<FCompute>("FCompute<gpu>", TakeBackward<gpu>);
SYMNET_REGISTER_OP(pick).set_attr<FCompute>("FCompute<gpu>", PickForward<gpu>);
SYMNET_REGISTER_OP(_backward_pick).set_attr<FCompute>("FCompute<gpu>", PickBackward<gpu>);
SYMNET_REGISTER_OP(one_hot).set_attr<FCompute>("FCompute<gpu>", OneHotForward<gpu>);

}  // namespace ops
}  // namespace symnet
