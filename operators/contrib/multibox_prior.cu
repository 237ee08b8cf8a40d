/*! \brief _contrib_MultiBoxPrior on a GPU: the CPU's kernel, one thread per anchor. */
#include "multibox_prior.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_MultiBoxPrior)
    .set_attr<FCompute>("FCompute<gpu>", MultiBoxPriorForward<gpu>);

}  // namespace ops
}  // namespace symnet
