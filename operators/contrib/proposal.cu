/*! \brief _contrib_Proposal and _contrib_MultiProposal on a GPU: the CPU's kernel, one thread per
 *  image. */
#include "proposal.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_Proposal).set_attr<FCompute>("FCompute<gpu>", ProposalForward<gpu>);
SYMNET_REGISTER_OP(_contrib_MultiProposal)
    .set_attr<FCompute>("FCompute<gpu>", ProposalForward<gpu>);

}  // namespace ops
}  // namespace symnet
