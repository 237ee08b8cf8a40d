/*! \brief nccl_allreduce.h in a build without CUDA: a clear error. */
#include "nccl_allreduce.h"
#include "symnet/base.h"

namespace symnet {
namespace cuda {

void NcclAllReduceSum(const std::vector<std::vector<NDArray>>& per_device) {
  SYMNET_THROW << "cannot all-reduce on gpu(" << per_device[0][0].device().id
               << "): symnet was built without CUDA (rebuild with -DSYMNET_USE_CUDA=ON on a "
                  "machine with the CUDA toolkit)";
}

}  // namespace cuda
}  // namespace symnet
