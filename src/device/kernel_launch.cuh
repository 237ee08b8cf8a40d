/*! \brief Kernel<OP, gpu>::Launch: the GPU side of kernel_launch.h (grid-stride loop). */
#ifndef SYMNET_SRC_DEVICE_KERNEL_LAUNCH_CUH_
#define SYMNET_SRC_DEVICE_KERNEL_LAUNCH_CUH_

#include <cuda_runtime.h>

#include "src/device/cuda_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

template <typename OP, typename... Args>
__global__ void GridStrideKernel(int64_t n, Args... args) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    OP::Map(i, args...);
  }
}

template <typename OP>
struct Kernel<OP, gpu> {
  static constexpr int kThreads = 256;
  /*! \brief Enqueues on `stream` (0: the default stream); never synchronises. */
  template <typename... Args>
  static void LaunchOn(cudaStream_t stream, int64_t n, Args... args) {
    if (n <= 0) return;
    const int64_t blocks = (n + kThreads - 1) / kThreads;
    const int grid = static_cast<int>(blocks < 65535 ? blocks : 65535);
    GridStrideKernel<OP, Args...><<<grid, kThreads, 0, stream>>>(n, args...);
    cuda::CheckLaunch("an element-wise kernel");  // a bad launch is reported here, in its op
  }
  /*! \brief Enqueues on the current device's stream (cuda::SetDevice). */
  template <typename... Args>
  static void Launch(int64_t n, Args... args) {
    LaunchOn(cuda::CurrentStream(), n, args...);
  }
  /*! \brief As the CPU's: one thread per item whatever its cost. */
  template <typename... Args>
  static void LaunchCost(int64_t n, int64_t /*cost*/, Args... args) {
    LaunchOn(cuda::CurrentStream(), n, args...);
  }
};

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_SRC_DEVICE_KERNEL_LAUNCH_CUH_
