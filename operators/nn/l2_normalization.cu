/*! \brief L2Normalization on a GPU: the CPU's kernels, one thread per normalized group. */
#include "l2_normalization.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(L2Normalization).set_attr<FCompute>("FCompute<gpu>", L2NormForward<gpu>);
SYMNET_REGISTER_OP(_backward_L2Normalization)
    .set_attr<FCompute>("FCompute<gpu>", L2NormBackward<gpu>);

}  // namespace ops
}  // namespace symnet
