/*! \brief GPU kernels of SoftmaxOutput (softmax.h's row kernels) and its valid-label count. */
#include "softmax.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {
struct CountValid {
  template <typename T>
  __device__ static void Map(int64_t r, const T* label, float ignore, float* count) {
    if (static_cast<AccType<T>>(label[r]) != static_cast<AccType<T>>(ignore))
      atomicAdd(count, 1.0f);
  }
};
}  // namespace

/*! \brief The count stays on the device (in the workspace), read by the gradient kernel. */
template <typename T>
const float* CountValidLabels(gpu, const T* label, int64_t rows, float ignore, float*,
                              const OpContext& ctx) {
  float* count = static_cast<float*>(cuda::Workspace(ctx.dev.id, sizeof(float)));
  cuda::Memset(count, 0, sizeof(float), ctx.dev.id);
  Kernel<CountValid, gpu>::Launch(rows, label, ignore, count);
  return count;
}

SYMNET_REGISTER_OP(SoftmaxOutput).set_attr<FCompute>("FCompute<gpu>", SoftmaxOutputCompute<gpu>);
SYMNET_REGISTER_OP(_backward_SoftmaxOutput)
    .set_attr<FCompute>("FCompute<gpu>", SoftmaxOutputGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
