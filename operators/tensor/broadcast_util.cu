/*! \brief GPU half of broadcast_util.h: the block reduction behind ReduceToShape on a GPU (few
 *  outputs, many terms each), used by the broadcast ops' gradients and by sum/mean. */
#include "broadcast_util.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

constexpr int kReduceThreads = 256;

/*! \brief Block (j, part) sums terms part*256 + t, ... of output j and adds the total to acc[j]. */
template <typename T>
__global__ void ReducePartsKernel(const T* src, ReduceDims r, double* acc) {
  __shared__ double partial[kReduceThreads];
  const int64_t j = blockIdx.x;
  const T* base = src + r.KeptOffset(j);  // the CPU kernel's indexing (broadcast_util.h)
  double s = 0;
  for (int64_t i = blockIdx.y * static_cast<int64_t>(kReduceThreads) + threadIdx.x;
       i < r.num_reduced; i += static_cast<int64_t>(gridDim.y) * kReduceThreads)
    s += static_cast<double>(static_cast<AccType<T>>(base[r.ReducedOffset(i)]));
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int step = kReduceThreads / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(&acc[j], partial[0]);
}

template <int req>
struct FinishReduce {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t j, const double* acc, T* dst, double scale) {
    AssignReq<req>(&dst[j], static_cast<AccType<T>>(acc[j] * scale));
  }
};

}  // namespace

template <typename T>
void ReduceToShapeBlocks(const T* src, const ReduceDims& r, T* dst, int64_t n, OpReqType req,
                         double scale) {
  const int dev = cuda::CurrentDevice();
  double* acc = static_cast<double*>(cuda::Workspace(dev, static_cast<size_t>(n) * sizeof(double)));
  cuda::Memset(acc, 0, static_cast<size_t>(n) * sizeof(double), dev);
  int64_t parts =
      (r.num_reduced + 8 * kReduceThreads - 1) / (8 * kReduceThreads);  // >= 8 terms per thread
  if (parts * n > 2048) parts = (2048 + n - 1) / n;
  if (parts < 1) parts = 1;
  const dim3 grid(static_cast<unsigned>(n), static_cast<unsigned>(parts > 65535 ? 65535 : parts));
  ReducePartsKernel<T><<<grid, kReduceThreads, 0, cuda::CurrentStream()>>>(src, r, acc);
  cuda::CheckLaunch("a reduction");
  SYMNET_REQ_SWITCH(req, Req, {
    Kernel<FinishReduce<Req>, gpu>::Launch(n, static_cast<const double*>(acc), dst, scale);
  });
}

#define SYMNET_INSTANTIATE_REDUCE_BLOCKS(T) \
  template void ReduceToShapeBlocks<T>(const T*, const ReduceDims&, T*, int64_t, OpReqType, double);
SYMNET_INSTANTIATE_REDUCE_BLOCKS(float)
SYMNET_INSTANTIATE_REDUCE_BLOCKS(double)
SYMNET_INSTANTIATE_REDUCE_BLOCKS(half_t)
SYMNET_INSTANTIATE_REDUCE_BLOCKS(bf16_t)

}  // namespace ops
}  // namespace symnet
