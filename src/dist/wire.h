/*! \brief How an NDArray of each dtype is summed across ranks (symnet::dist). */
#ifndef SYMNET_SRC_DIST_WIRE_H_
#define SYMNET_SRC_DIST_WIRE_H_

#include <vector>

#include "symnet/dtype.h"
#include "symnet/ndarray.h"
#include "transport.h"

namespace symnet {
namespace dist {

/*! \brief float16/bfloat16 are summed in float32 (their sum would round at every step), float64
 *  in float64, integers and bool in int64. */
inline transport::Wire WireOf(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16:
      return transport::Wire::kFloat32;
    case DType::kFloat64:
      return transport::Wire::kFloat64;
    default:
      return transport::Wire::kInt64;
  }
}

inline DType WireDType(transport::Wire w) {
  return w == transport::Wire::kFloat32   ? DType::kFloat32
         : w == transport::Wire::kFloat64 ? DType::kFloat64
                                          : DType::kInt64;
}

/*! \brief NCCL's path (nccl_ranks_cuda.cc); declared here to keep this header CUDA-free. */
bool NcclBuilt();
void NcclSumOverRanks(const std::vector<const NDArray*>& arrays, transport::Wire wire);

/*!
 * \brief Sums `arrays` (all of wire type `wire`) over the ranks, on the communication thread:
 *  arrays all on one GPU with NCCL (on the device's stream); one float32/float64 CPU array of the
 *  wire's dtype where it lies; otherwise the arrays are packed into `buf` (grown once, kept by
 *  the caller for the next call), summed with MPI and unpacked.
 */
inline void SumOverRanks(const std::vector<const NDArray*>& arrays, transport::Wire wire,
                         std::vector<char>* buf) {
  if (!arrays.empty() && NcclBuilt()) {
    bool one_gpu = arrays[0]->device().type == Device::kGPU;
    for (const NDArray* a : arrays) one_gpu = one_gpu && a->device() == arrays[0]->device();
    if (one_gpu) return NcclSumOverRanks(arrays, wire);
  }
  const DType wt = WireDType(wire);
  size_t count = 0;
  for (const NDArray* a : arrays) count += static_cast<size_t>(a->Size());
  if (arrays.size() == 1 && arrays[0]->dtype() == wt && arrays[0]->device().type == Device::kCPU) {
    transport::AllReduceSum(arrays[0]->dptr(), count, wire);
    return;
  }
  const size_t elem = DTypeSize(wt);
  buf->resize(count * elem);
  size_t off = 0;
  for (const NDArray* a : arrays) {
    a->CopyToBuffer(buf->data() + off * elem, wt);
    off += static_cast<size_t>(a->Size());
  }
  transport::AllReduceSum(buf->data(), count, wire);
  off = 0;
  for (const NDArray* a : arrays) {
    a->CopyFromBuffer(buf->data() + off * elem, wt);
    off += static_cast<size_t>(a->Size());
  }
}

}  // namespace dist
}  // namespace symnet

#endif  // SYMNET_SRC_DIST_WIRE_H_
