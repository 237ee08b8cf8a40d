/*! \brief GPU kernels of MakeLoss's gradient (make_loss.h) and its count of valid elements. */
#include "make_loss.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {
struct CountAboveKernel {
  template <typename T>
  __device__ static void Map(int64_t i, const T* x, double thresh, unsigned long long* count) {
    if (static_cast<double>(static_cast<AccType<T>>(x[i])) > thresh) atomicAdd(count, 1ull);
  }
};
}  // namespace

/*! \brief The count stays on the device (in the workspace), read by the gradient kernel. */
template <typename T>
const unsigned long long* CountAbove(gpu, const T* x, int64_t n, double thresh, unsigned long long*,
                                     const OpContext& ctx) {
  auto* count =
      static_cast<unsigned long long*>(cuda::Workspace(ctx.dev.id, sizeof(unsigned long long)));
  cuda::Memset(count, 0, sizeof(unsigned long long), ctx.dev.id);
  Kernel<CountAboveKernel, gpu>::Launch(n, x, thresh, count);
  return count;
}

SYMNET_REGISTER_OP(_backward_MakeLoss)
    .set_attr<FCompute>("FCompute<gpu>", MakeLossGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
