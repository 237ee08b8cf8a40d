/*!
 * \brief _FusedBatchNormReLU (and _contrib_BatchNormWithReLU, the same node) on the GPU: the
 *  bind-time fusion is CPU-only, but a node that gets to a GPU still runs, through BatchNorm's
 *  and the ReLU's GPU kernels in turn.
 */
#include "batch_norm_relu.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_FusedBatchNormReLU)
    .set_attr<FCompute>("FCompute<gpu>", FusedBatchNormReLUForward);
SYMNET_REGISTER_OP(_contrib_BatchNormWithReLU)
    .set_attr<FCompute>("FCompute<gpu>", FusedBatchNormReLUForward);
SYMNET_REGISTER_OP(_backward_FusedBatchNormReLU)
    .set_attr<FCompute>("FCompute<gpu>", FusedBatchNormReLUBackward);

}  // namespace ops
}  // namespace symnet
