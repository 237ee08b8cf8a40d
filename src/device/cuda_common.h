/*!
 * \brief What CUDA code shares: error checks that name the failing call, and each device's
 *  resources (its one stream, cuBLAS and cuDNN handles, a scratch workspace, a pinned staging
 *  buffer). Included only by *.cu and *_cuda.cc files.
 */
#ifndef SYMNET_SRC_DEVICE_CUDA_COMMON_H_
#define SYMNET_SRC_DEVICE_CUDA_COMMON_H_

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "device_ops.h"
#include "symnet/base.h"

#define SYMNET_CUDA_CALL(expr)                                                                    \
  do {                                                                                            \
    const cudaError_t symnet_e_ = (expr);                                                         \
    SYMNET_CHECK(symnet_e_ == cudaSuccess) << #expr << " failed: " << cudaGetErrorName(symnet_e_) \
                                           << " (" << cudaGetErrorString(symnet_e_) << ")";       \
  } while (0)

#define SYMNET_CUBLAS_CALL(expr)                                     \
  do {                                                               \
    const cublasStatus_t symnet_s_ = (expr);                         \
    SYMNET_CHECK(symnet_s_ == CUBLAS_STATUS_SUCCESS)                 \
        << #expr << " failed: " << cublasGetStatusString(symnet_s_); \
  } while (0)

#define SYMNET_CUDNN_CALL(expr)                                    \
  do {                                                             \
    const cudnnStatus_t symnet_s_ = (expr);                        \
    SYMNET_CHECK(symnet_s_ == CUDNN_STATUS_SUCCESS)                \
        << #expr << " failed: " << cudnnGetErrorString(symnet_s_); \
  } while (0)

namespace symnet {
namespace cuda {

/*! \brief One GPU's resources, created on first use and kept for the process. */
struct DeviceResources {
  int id = 0;
  cudaStream_t stream = nullptr;  // every kernel, copy and library call of this device
  cublasHandle_t blas = nullptr;  // bound to `stream`, tensor-op math allowed
  cublasLtHandle_t blas_lt = nullptr;
  cudnnHandle_t dnn = nullptr;  // bound to `stream`
  void* workspace = nullptr;    // library scratch space, grown on demand
  size_t workspace_bytes = 0;
  void* layout_scratch = nullptr;  // operands copied into another memory order (LayoutScratch)
  size_t layout_scratch_bytes = 0;
  void* staging = nullptr;  // pinned host memory for host <-> device copies
  size_t staging_bytes = 0;
  std::mutex staging_mutex;  // host threads copying to this device take turns
  /*! \brief Bumped whenever device scratch memory (workspace, ones vectors) is replaced: CUDA
   *  graphs captured before hold pointers to the old memory and must be captured again. */
  std::atomic<uint64_t> generation{0};
};

/*! \brief The resources of GPU `dev` (checks that the device exists). */
DeviceResources& Resources(int dev);
/*! \brief The device current on this thread (SetDevice), 0 when none was set. */
int CurrentDevice();
/*! \brief The stream of the current device: where Kernel<OP, gpu>::Launch enqueues. */
cudaStream_t CurrentStream();
/*!
 * \brief At least `bytes` of scratch memory on `dev`. One stream per device means that work
 *  enqueued earlier has finished with it by the time later work runs; growing it waits for
 *  the stream first.
 */
void* Workspace(int dev, size_t bytes);
/*!
 * \brief At least `bytes` of scratch memory on `dev` for operands an op copies into another
 *  memory order (e.g. NCHW filters for an NHWC convolution). Separate from Workspace because
 *  the library call that follows takes its own workspace; same lifetime rules.
 */
void* LayoutScratch(int dev, size_t bytes);
/*! \brief At least `bytes` of pinned host memory of `dev` (the caller synchronises before the
 *  next use). */
void* Staging(int dev, size_t bytes);

/*! \brief Raises the error of the last kernel launch, naming `what`. */
void CheckLaunch(const char* what);

}  // namespace cuda
}  // namespace symnet

#endif  // SYMNET_SRC_DEVICE_CUDA_COMMON_H_
