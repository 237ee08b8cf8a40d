/*! \brief Per-device resources (stream, library handles, scratch, pinned staging) and copies. */
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda_common.h"
#include "symnet/runtime.h"

namespace symnet {
namespace cuda {

namespace {

thread_local int t_current_device = -1;
thread_local cudaStream_t t_current_stream = nullptr;  // the current device's stream (no lock)

std::mutex& ResourcesMutex() {
  static std::mutex m;
  return m;
}

/*! \brief Created resources, by device id. Never destroyed: CUDA tears them down at exit, and
 *  destroying handles after the driver has shut down would fail. */
std::vector<std::unique_ptr<DeviceResources>>& AllResources() {
  static auto* v = new std::vector<std::unique_ptr<DeviceResources>>();
  return *v;
}

/*! \brief Replaces a scratch block by a larger one: the new block is allocated first (a failed
 *  allocation leaves the old one in place), and the generation is bumped because CUDA graphs
 *  captured with the old block must not be replayed. */
void Grow(void** ptr, size_t* have, size_t want, int dev, bool pinned) {
  if (*have >= want) return;
  DeviceResources& r = Resources(dev);
  const size_t bytes = std::max(want, *have * 2);
  void* fresh = nullptr;
  if (pinned) {
    SYMNET_CUDA_CALL(cudaMallocHost(&fresh, bytes));
  } else {
    fresh = DeviceAlloc(bytes, dev);
  }
  SYMNET_CUDA_CALL(cudaStreamSynchronize(r.stream));  // earlier work may still use the old block
  if (*ptr != nullptr) {
    if (pinned) {
      cudaFreeHost(*ptr);
    } else {
      DeviceFree(*ptr, *have, dev);
    }
  }
  *ptr = fresh;
  *have = bytes;
  if (!pinned) ++r.generation;
}

/*! \brief Makes `dev` current for the scope and restores the previous device after. */
class DeviceScope {
 public:
  explicit DeviceScope(int dev) {
    cudaGetDevice(&prev_);
    if (prev_ != dev) cudaSetDevice(dev);
    dev_ = dev;
  }
  ~DeviceScope() {
    if (prev_ != dev_) cudaSetDevice(prev_);
  }

 private:
  int prev_ = 0, dev_ = 0;
};

}  // namespace

DeviceResources& Resources(int dev) {
  std::lock_guard<std::mutex> lock(ResourcesMutex());
  auto& all = AllResources();
  if (dev >= 0 && dev < static_cast<int>(all.size()) && all[dev]) return *all[dev];
  const int n = NumGPUs();
  SYMNET_CHECK(dev >= 0 && dev < n)
      << "cannot use gpu(" << dev << "): "
      << (n == 0 ? std::string("no CUDA device on this machine")
                 : "this machine has " + std::to_string(n) + " GPU(s), gpu(0) to gpu(" +
                       std::to_string(n - 1) + ")");
  if (static_cast<int>(all.size()) <= dev) all.resize(dev + 1);
  auto r = std::make_unique<DeviceResources>();
  r->id = dev;
  DeviceScope scope(dev);
  SYMNET_CUDA_CALL(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
  SYMNET_CUBLAS_CALL(cublasCreate(&r->blas));
  SYMNET_CUBLAS_CALL(cublasSetStream(r->blas, r->stream));
  // float32 GEMMs keep full float32 precision (no TF32) so that GPU results compare with the
  // CPU's; 16-bit GEMMs use tensor cores through their compute type
  SYMNET_CUBLAS_CALL(cublasSetMathMode(r->blas, CUBLAS_DEFAULT_MATH));
  SYMNET_CUBLAS_CALL(cublasLtCreate(&r->blas_lt));
  // a workspace of our own (plain cudaMalloc: the pool needs these resources): cuBLAS then
  // allocates nothing while a CUDA graph is being captured
  const size_t blas_ws = size_t(32) << 20;
  void* ws = nullptr;
  SYMNET_CUDA_CALL(cudaMalloc(&ws, blas_ws));
  SYMNET_CUBLAS_CALL(cublasSetWorkspace(r->blas, ws, blas_ws));
  SYMNET_CUDNN_CALL(cudnnCreate(&r->dnn));
  SYMNET_CUDNN_CALL(cudnnSetStream(r->dnn, r->stream));
  all[dev] = std::move(r);
  return *all[dev];
}

void SetDevice(int dev) {
  if (t_current_device == dev) return;
  cudaStream_t s = Resources(dev).stream;  // checks that it exists
  SYMNET_CUDA_CALL(cudaSetDevice(dev));
  t_current_device = dev;
  t_current_stream = s;
}

int CurrentDevice() {
  if (t_current_device >= 0) return t_current_device;
  int d = 0;
  cudaGetDevice(&d);
  return d;
}

cudaStream_t CurrentStream() {
  if (t_current_stream != nullptr) return t_current_stream;
  SetDevice(CurrentDevice());
  return t_current_stream;
}

uint64_t ScratchGeneration(int dev) { return Resources(dev).generation; }

void BumpScratchGeneration(int dev) { ++Resources(dev).generation; }

void* Workspace(int dev, size_t bytes) {
  DeviceResources& r = Resources(dev);
  Grow(&r.workspace, &r.workspace_bytes, bytes, dev, false);
  return r.workspace;
}

void* LayoutScratch(int dev, size_t bytes) {
  DeviceResources& r = Resources(dev);
  Grow(&r.layout_scratch, &r.layout_scratch_bytes, bytes, dev, false);
  return r.layout_scratch;
}

void* Staging(int dev, size_t bytes) {
  DeviceResources& r = Resources(dev);
  Grow(&r.staging, &r.staging_bytes, bytes, dev, true);
  return r.staging;
}

void Synchronize(int dev) {
  const cudaError_t e = cudaStreamSynchronize(Resources(dev).stream);
  SYMNET_CHECK(e == cudaSuccess) << "a GPU operation on gpu(" << dev
                                 << ") failed: " << cudaGetErrorName(e) << " ("
                                 << cudaGetErrorString(e) << ")";
}

void CheckLaunch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  SYMNET_CHECK(e == cudaSuccess) << "launching the GPU kernel of " << what
                                 << " failed: " << cudaGetErrorName(e) << " ("
                                 << cudaGetErrorString(e) << ")";
}

void MemInfo(int dev, size_t* free_bytes, size_t* total_bytes) {
  SetDevice(dev);
  SYMNET_CUDA_CALL(cudaMemGetInfo(free_bytes, total_bytes));
}

void Memset(void* ptr, int value, size_t bytes, int dev) {
  if (bytes == 0) return;
  SetDevice(dev);  // a stream is used on its own device's context
  SYMNET_CUDA_CALL(cudaMemsetAsync(ptr, value, bytes, Resources(dev).stream));
}

void CopyBytes(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  const bool dst_gpu = dst_dev.type == Device::kGPU, src_gpu = src_dev.type == Device::kGPU;
  if (!dst_gpu && !src_gpu) {
    std::memcpy(dst, src, bytes);
    return;
  }
  if (dst_gpu && src_gpu) {
    SetDevice(dst_dev.id);  // a stream is used on its own device's context
    if (dst_dev.id == src_dev.id) {
      SYMNET_CUDA_CALL(
          cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, Resources(dst_dev.id).stream));
    } else {  // the source must be complete before the peer copy on the destination's stream
      Synchronize(src_dev.id);
      SYMNET_CUDA_CALL(cudaMemcpyPeerAsync(dst, dst_dev.id, src, src_dev.id, bytes,
                                           Resources(dst_dev.id).stream));
      Synchronize(dst_dev.id);
    }
    return;
  }
  // host <-> device through the device's pinned staging buffer, in pieces of at most 64 MiB;
  // the host side may be freed when this returns, so every piece is waited for
  const int dev = dst_gpu ? dst_dev.id : src_dev.id;
  const size_t piece = std::min<size_t>(bytes, size_t(64) << 20);
  SetDevice(dev);
  std::lock_guard<std::mutex> lock(Resources(dev).staging_mutex);  // one staging buffer per device
  char* stage = static_cast<char*>(Staging(dev, piece));
  cudaStream_t s = Resources(dev).stream;
  for (size_t done = 0; done < bytes; done += piece) {
    const size_t n = std::min(piece, bytes - done);
    if (dst_gpu) {
      std::memcpy(stage, static_cast<const char*>(src) + done, n);
      SYMNET_CUDA_CALL(
          cudaMemcpyAsync(static_cast<char*>(dst) + done, stage, n, cudaMemcpyHostToDevice, s));
      Synchronize(dev);
    } else {
      SYMNET_CUDA_CALL(cudaMemcpyAsync(stage, static_cast<const char*>(src) + done, n,
                                       cudaMemcpyDeviceToHost, s));
      Synchronize(dev);
      std::memcpy(static_cast<char*>(dst) + done, stage, n);
    }
  }
}

}  // namespace cuda
}  // namespace symnet
