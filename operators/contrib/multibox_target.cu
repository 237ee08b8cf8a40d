/*! \brief _contrib_MultiBoxTarget on a GPU: the CPU's kernel, one thread per image. */
#include "multibox_target.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_MultiBoxTarget)
    .set_attr<FCompute>("FCompute<gpu>", MultiBoxTargetForward<gpu>);

}  // namespace ops
}  // namespace symnet
