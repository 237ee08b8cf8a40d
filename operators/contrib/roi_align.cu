/*! \brief ROIAlign on a GPU: the CPU's kernels (forward per output element, backward per input
 *  plane, so no atomics). */
#include "roi_align.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_ROIAlign).set_attr<FCompute>("FCompute<gpu>", ROIAlignForward<gpu>);
SYMNET_REGISTER_OP(_backward_ROIAlign).set_attr<FCompute>("FCompute<gpu>", ROIAlignBackward<gpu>);

}  // namespace ops
}  // namespace symnet
