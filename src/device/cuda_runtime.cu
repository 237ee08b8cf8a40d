/*! \brief CUDA runtime queries and a GPU self-test through Kernel<OP, gpu>. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <vector>

#include "cuda_common.h"
#include "src/device/kernel_launch.cuh"
#include "symnet/runtime.h"

namespace symnet {

namespace {
/*! \brief The self-test's kernel: a logistic sigmoid, checked on the host below. */
struct SelfTestSigmoid {
  SYMNET_XINLINE static void Map(int64_t i, float* out, const float* in) {
    out[i] = 1.f / (1.f + expf(-in[i]));
  }
};
}  // namespace

bool BuiltWithCUDA() { return true; }

int NumGPUs() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later queries start clean
    return 0;
  }
  return n;
}

namespace cuda {

std::map<std::string, std::string> Versions() {
  std::map<std::string, std::string> v;
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  v["CUDA_VERSION"] = std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10);
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  v["CUBLAS_VERSION"] =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  const size_t dnn = cudnnGetVersion();
  v["CUDNN_VERSION"] = std::to_string(dnn / 10000) + "." + std::to_string((dnn % 10000) / 100) +
                       "." + std::to_string(dnn % 100);
  return v;
}

bool SelfTest(int device, std::string* why) {
  if (device >= NumGPUs()) {
    *why = "no CUDA device " + std::to_string(device) + " on this machine";
    return false;
  }
  try {
    SetDevice(device);
  } catch (const Error& e) {
    *why = e.what();
    return false;
  }
  const int n = 1000;
  std::vector<float> host(n), res(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i - n / 2) / 100.f;
  try {
    // through the pool and the staged copies, on the device's stream, as everything else
    float* in = static_cast<float*>(DeviceAlloc(n * sizeof(float), device));
    float* out = static_cast<float*>(DeviceAlloc(n * sizeof(float), device));
    CopyBytes(in, Device::GPU(device), host.data(), Device::CPU(), n * sizeof(float));
    ops::Kernel<SelfTestSigmoid, ops::gpu>::Launch(n, out, static_cast<const float*>(in));
    CopyBytes(res.data(), Device::CPU(), out, Device::GPU(device), n * sizeof(float));
    DeviceFree(in, n * sizeof(float), device);
    DeviceFree(out, n * sizeof(float), device);
  } catch (const Error& e) {
    *why = std::string("kernel failed: ") + e.what();
    return false;
  }
  for (int i = 0; i < n; ++i) {
    const float expect = 1.f / (1.f + std::exp(-host[i]));
    if (std::fabs(res[i] - expect) > 1e-5f) {
      *why = "wrong result at " + std::to_string(i);
      return false;
    }
  }
  return true;
}

}  // namespace cuda
}  // namespace symnet
