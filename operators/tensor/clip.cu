/*! \brief GPU kernels of clip (clip.h's functors with xpu = gpu). */
#include "clip.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(clip).set_attr<FCompute>("FCompute<gpu>", ClipCompute<gpu>);
SYMNET_REGISTER_OP(_backward_clip).set_attr<FCompute>("FCompute<gpu>", ClipGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
