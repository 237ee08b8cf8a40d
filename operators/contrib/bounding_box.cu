/*!
 * \brief box_iou, box_nms and bipartite_matching on a GPU: the CPU's kernels (one thread per box
 *  pair for box_iou, one thread per batch item for the greedy box_nms and matching passes).
 */
#include "bounding_box.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_box_iou).set_attr<FCompute>("FCompute<gpu>", BoxIoUForward<gpu>);
SYMNET_REGISTER_OP(_contrib_box_nms).set_attr<FCompute>("FCompute<gpu>", BoxNMSForward<gpu>);
SYMNET_REGISTER_OP(_backward_contrib_box_nms)
    .set_attr<FCompute>("FCompute<gpu>", BoxNMSBackward<gpu>);
SYMNET_REGISTER_OP(_contrib_bipartite_matching)
    .set_attr<FCompute>("FCompute<gpu>", BipartiteMatchingForward<gpu>);

}  // namespace ops
}  // namespace symnet
