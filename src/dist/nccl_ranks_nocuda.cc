/*! \brief wire.h's NCCL path in a build without CUDA: there are no GPU arrays to sum. */
#include "symnet/base.h"
#include "wire.h"

namespace symnet {
namespace dist {

bool NcclBuilt() { return false; }

void NcclSumOverRanks(const std::vector<const NDArray*>&, transport::Wire) {
  SYMNET_THROW << "dist: this build has no CUDA, so no NCCL to sum GPU arrays with";
}

}  // namespace dist
}  // namespace symnet
