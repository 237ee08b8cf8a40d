/*! \brief The Features() table: build options and CPU capabilities. */
#include <oneapi/dnnl/dnnl.hpp>

#include "symnet/runtime.h"

namespace symnet {

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
  f["F16C"] = __builtin_cpu_supports("f16c") ? "1" : "0";
  f["AVX512F"] = __builtin_cpu_supports("avx512f") ? "1" : "0";
  f["AVX512_BF16"] = __builtin_cpu_supports("avx512bf16") ? "1" : "0";
  const dnnl_version_t* v = dnnl_version();
  f["DNNL_VERSION"] = std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                      std::to_string(v->patch);
  f["DNNL_BF16_NATIVE"] = DnnlNativeBF16() ? "1" : "0";
  f["NUM_GPUS"] = std::to_string(NumGPUs());
  for (const auto& kv : cuda::Versions()) f[kv.first] = kv.second;
  return f;
}

}  // namespace symnet
