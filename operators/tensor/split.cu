/*! \brief GPU kernels of SliceChannel (split): slice.h's box copy with xpu = gpu, one launch per
 *  part. */
#include "slice.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(SliceChannel).set_attr<FCompute>("FCompute<gpu>", SplitForward<gpu>);
SYMNET_REGISTER_OP(_backward_SliceChannel).set_attr<FCompute>("FCompute<gpu>", SplitBackward<gpu>);

}  // namespace ops
}  // namespace symnet
