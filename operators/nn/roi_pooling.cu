/*! \brief ROIPooling on a GPU: the CPU's kernels (forward per output element, backward per input
 *  plane, so no atomics). */
#include "roi_pooling.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(ROIPooling).set_attr<FCompute>("FCompute<gpu>", ROIPoolingForward<gpu>);
SYMNET_REGISTER_OP(_backward_ROIPooling)
    .set_attr<FCompute>("FCompute<gpu>", ROIPoolingBackward<gpu>);

}  // namespace ops
}  // namespace symnet
