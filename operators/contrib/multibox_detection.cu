/*! \brief _contrib_MultiBoxDetection on a GPU: the CPU's kernel, one thread per image. */
#include "multibox_detection.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_MultiBoxDetection)
    .set_attr<FCompute>("FCompute<gpu>", MultiBoxDetectionForward<gpu>);

}  // namespace ops
}  // namespace symnet
