/*!
 * \brief _FusedConvBN on the GPU: the bind-time fusion is CPU-only, but a node read from a graph
 *  made elsewhere still runs, through the convolution, BatchNorm and ReLU GPU kernels in turn.
 */
#include "conv_bn_fused.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_FusedConvBN).set_attr<FCompute>("FCompute<gpu>", FusedConvBNCompute);

}  // namespace ops
}  // namespace symnet
