/*! \brief The Features() table: build options and CPU capabilities. */
#include <oneapi/dnnl/dnnl.hpp>

#include "symnet/runtime.h"

namespace symnet {

bool NativeLowPrecision(const Device& device, DType dtype, std::string* why) {
  auto say = [&](const std::string& s) {
    if (why) *why = s;
  };
  if (device.type == Device::kGPU) {
    say("");
    return dtype == DType::kFloat16 || dtype == DType::kBFloat16;
  }
  if (dtype == DType::kBFloat16) {
    if (DnnlNativeBF16()) return true;
    say("this CPU has no native bfloat16 (AVX512_BF16 or AMX): oneDNN's bfloat16 kernels need "
        "it, so bfloat16 ops run through float32 and round, slower than float32");
    return false;
  }
  say("CPUs have no float16 convolution/matrix kernels in oneDNN: float16 ops run through "
      "float32 and round, slower than float32");
  return false;
}

DType AutoAmpDType(const Device& device, std::string* why) {
  auto say = [&](const std::string& s) {
    if (why) *why = s;
  };
  if (device.type == Device::kGPU) {
    say("float16 (a GPU: tensor cores run float16)");
    return DType::kFloat16;
  }
  std::string reason;
  if (NativeLowPrecision(device, DType::kBFloat16, &reason)) {
    say("bfloat16 (this CPU has native bfloat16 instructions that oneDNN uses)");
    return DType::kBFloat16;
  }
  say("float32, AMP off (" + reason + ")");
  return DType::kFloat32;
}

std::map<std::string, std::string> Features() {
  std::map<std::string, std::string> f;
  f["CUDA"] = BuiltWithCUDA() ? "1" : "0";
  f["CUDNN"] = BuiltWithCUDA() ? "1" : "0";
#ifdef SYMNET_HAVE_NCCL
  f["NCCL"] = "1";
#else
  f["NCCL"] = "0";
#endif
  f["DNNL"] = "1";
  f["OPENMP"] = "1";
  __builtin_cpu_init();
  f["F16C"] = CpuHasF16C() ? "1" : "0";
  f["AVX512F"] = __builtin_cpu_supports("avx512f") ? "1" : "0";
  f["AVX512_BF16"] = __builtin_cpu_supports("avx512bf16") ? "1" : "0";
  const dnnl_version_t* v = dnnl_version();
  f["DNNL_VERSION"] =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  f["DNNL_BF16_NATIVE"] = DnnlNativeBF16() ? "1" : "0";
  f["DNNL_ISA"] = DnnlCpuIsa();
  f["NUM_GPUS"] = std::to_string(NumGPUs());
  for (const auto& kv : cuda::Versions()) f[kv.first] = kv.second;
  return f;
}

}  // namespace symnet
