/*!
 * \brief NCCL's error check and dtype mapping, shared by the all-reduce across the GPUs of one
 *  process (nccl_cuda.cc) and across the ranks of a job (src/dist/nccl_ranks_cuda.cc). Only for
 *  files compiled where SYMNET_HAVE_NCCL is defined.
 */
#ifndef SYMNET_SRC_NDARRAY_NCCL_CALL_H_
#define SYMNET_SRC_NDARRAY_NCCL_CALL_H_

#include <nccl.h>

#include "symnet/base.h"
#include "symnet/dtype.h"

#define SYMNET_NCCL_CALL(expr)                                           \
  do {                                                                   \
    const ncclResult_t symnet_r_ = (expr);                               \
    SYMNET_CHECK(symnet_r_ == ncclSuccess)                               \
        << #expr << " failed: " << ncclGetErrorString(symnet_r_) << " (" \
        << ncclGetLastError(nullptr) << ")";                             \
  } while (0)

namespace symnet {
namespace cuda {

inline ncclDataType_t NcclType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
    case DType::kInt32:
      return ncclInt32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUint8:
      return ncclUint8;
    case DType::kInt8:
      return ncclInt8;
    default:
      SYMNET_THROW << "all-reduce does not support dtype " << t;
  }
}

}  // namespace cuda
}  // namespace symnet

#endif  // SYMNET_SRC_NDARRAY_NCCL_CALL_H_
