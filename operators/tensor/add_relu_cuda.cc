/*!
 * \brief The fused sum + ReLU ops on the GPU: the bind-time fusion is CPU-only, but a node that
 *  gets to a GPU still runs, through the sum's and the ReLU's GPU kernels in turn.
 */
#include "add_relu.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_FusedAddReLU).set_attr<FCompute>("FCompute<gpu>", AddReLUByParts);
SYMNET_REGISTER_OP(_backward_FusedAddNReLU).set_attr<FCompute>("FCompute<gpu>", SumReLUGradByParts);

}  // namespace ops
}  // namespace symnet
