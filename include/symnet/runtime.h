/*! \brief What this build and this machine offer: CUDA, GPUs, CPU features. */
#ifndef SYMNET_RUNTIME_H_
#define SYMNET_RUNTIME_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "symnet/device.h"
#include "symnet/dtype.h"

namespace symnet {

/*! \brief Whether the library was compiled with the CUDA backend. */
bool BuiltWithCUDA();
/*!
 * \brief Whether oneDNN runs bfloat16 with native instructions on this CPU (AVX512-BF16/AMX);
 *  without them symnet computes bfloat16 ops through float32 and rounds.
 */
bool DnnlNativeBF16();
/*!
 * \brief The oneDNN primitives symnet created in this process, each as "kind: implementation"
 *  ("convolution forward: jit:avx2"), without repeats, in creation order. A name containing
 *  "ref" is one of oneDNN's reference kernels (plain loops, orders of magnitude slower).
 */
std::vector<std::string> DnnlPrimitivesCreated();
/*! \brief Forgets what DnnlPrimitivesCreated has recorded. */
void ClearDnnlPrimitivesCreated();
/*!
 * \brief The CPU instruction set oneDNN's kernels use here ("avx2", "avx512_core",
 *  "avx512_core_bf16", "avx512_core_amx", ...): the CPU's, or lower when capped with
 *  ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA.
 */
std::string DnnlCpuIsa();
/*!
 * \brief The fused RNN op's CPU implementation: "dnnl" (oneDNN's RNN primitives wherever they
 *  apply, the GEMM path elsewhere), "gemm" (symnet's GEMMs and step kernels) or "auto" (the
 *  default: the one measured faster, docs/performance.md). Starts from the environment variable
 *  SYMNET_RNN_IMPL (read once); an unknown name is an error. Takes effect at the next call of
 *  each RNN node; set it between whole forward/backward passes, never between the two.
 */
void SetRnnCpuImpl(const std::string& impl);
std::string RnnCpuImpl();
/*! \brief Number of usable GPUs (0 without a CUDA build, a driver or a device). */
int NumGPUs();
/*!
 * \brief Whether `dtype` (float16 or bfloat16) has native kernels on `device`'s hardware, so AMP
 *  in it runs faster than float32 there. When not, `why` (if given) says what is missing.
 */
bool NativeLowPrecision(const Device& device, DType dtype, std::string* why = nullptr);
/*!
 * \brief AMP's "auto" target for `device`: float16 on GPUs, bfloat16 on CPUs with native
 *  bfloat16 (AVX512_BF16 or AMX), float32 (AMP off) on other CPUs. `why` gets one line saying
 *  which and why.
 */
DType AutoAmpDType(const Device& device, std::string* why = nullptr);
/*!
 * \brief Feature name -> enabled: "CUDA", "CUDNN", "DNNL", "OPENMP", "F16C", "AVX512_BF16",
 *  plus versions as text under "CUDA_VERSION", "CUDNN_VERSION", "CUBLAS_VERSION", "DNNL_VERSION".
 */
std::map<std::string, std::string> Features();

namespace cuda {
/*!
 * \brief Runs a small element-wise kernel (the shared functors through Kernel<OP, gpu>) on
 *  GPU `device` and checks its result. Returns false with `why` set when no GPU is usable.
 */
bool SelfTest(int device, std::string* why);
/*! \brief Waits for everything enqueued on GPU `dev`'s stream; raises a kernel's error. */
void Synchronize(int dev);
/*! \brief Makes `dev` the current device of this thread (kernels launch on its stream). */
void SetDevice(int dev);

/*! \brief Free and total bytes of GPU `dev` (cudaMemGetInfo). */
void MemInfo(int dev, size_t* free_bytes, size_t* total_bytes);

struct MemoryStats {
  size_t in_use = 0;  // bytes handed out by DeviceAlloc and not freed
  size_t cached = 0;  // bytes held in the pool for reuse
  size_t peak = 0;    // the largest in_use seen
};
MemoryStats GetMemoryStats(int dev);

/*! \brief Version strings of the CUDA runtime, cuBLAS and cuDNN linked in (empty without CUDA). */
std::map<std::string, std::string> Versions();
}  // namespace cuda

}  // namespace symnet

#endif  // SYMNET_RUNTIME_H_
