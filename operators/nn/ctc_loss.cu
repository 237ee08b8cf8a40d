/*! \brief CTCLoss on a GPU: the CPU's kernels, one thread per batch element. */
#include "ctc_loss.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(CTCLoss).set_attr<FCompute>("FCompute<gpu>", CTCLossForward<gpu>);
SYMNET_REGISTER_OP(_backward_CTCLoss).set_attr<FCompute>("FCompute<gpu>", CTCLossBackward<gpu>);

}  // namespace ops
}  // namespace symnet
