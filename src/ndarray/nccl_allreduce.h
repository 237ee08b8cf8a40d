/*!
 * \brief All-reduce of NDArrays on GPUs with NCCL, for AllReduceSum (collectives.h). It lives
 *  in the tensor layer, not in the device layer, because it takes NDArrays.
 */
#ifndef SYMNET_SRC_NDARRAY_NCCL_ALLREDUCE_H_
#define SYMNET_SRC_NDARRAY_NCCL_ALLREDUCE_H_

#include <vector>

#include "symnet/ndarray.h"

namespace symnet {
namespace cuda {

/*! \brief AllReduceSum for arrays on GPUs (one NCCL group call); see collectives.h. */
void NcclAllReduceSum(const std::vector<std::vector<NDArray>>& per_device);

}  // namespace cuda
}  // namespace symnet

#endif  // SYMNET_SRC_NDARRAY_NCCL_ALLREDUCE_H_
