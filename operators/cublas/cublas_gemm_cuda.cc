/*! \brief cuBLAS GEMM for row-major arrays (cublas_gemm.h). */
#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <utility>

#include "cublas_gemm.h"
#include "src/device/cuda_common.h"

namespace symnet {
namespace ops {
namespace cublas {

namespace {
cudaDataType_t CudaType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return CUDA_R_32F;
    case DType::kFloat64:
      return CUDA_R_64F;
    case DType::kFloat16:
      return CUDA_R_16F;
    case DType::kBFloat16:
      return CUDA_R_16BF;
    default:
      SYMNET_THROW << "GPU matrix products support float32, float64, float16 and bfloat16, not "
                   << t;
  }
}

int Dim(int64_t v, const char* what) {
  SYMNET_CHECK(v >= 0 && v <= INT_MAX)
      << "GPU matrix product: " << what << " = " << v << " exceeds cuBLAS's int range";
  return static_cast<int>(v);
}
}  // namespace

void Run(int dev, const Gemm& g, const void* a, const void* b, void* c) {
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  cuda::DeviceResources& r = cuda::Resources(dev);
  cuda::SetDevice(dev);
  const int m = Dim(g.m, "m"), n = Dim(g.n, "n"), k = Dim(g.k, "k");
  // cuBLAS is column-major: a row-major C (m, n) is a column-major C^T (n, m), so compute
  // C^T = op(B)^T op(A)^T with the operands swapped
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = g.trans_b ? k : n, lda = g.trans_a ? m : k, ldc = n;
  const cudaDataType_t t = CudaType(g.dtype);
  if (g.k == 0) {  // an empty sum: C = 0 (or unchanged)
    if (!g.accumulate)
      cuda::Memset(c, 0, static_cast<size_t>(g.batch * g.m * g.n) * DTypeSize(g.dtype), dev);
    return;
  }
  if (g.batch > 1) {  // batch_dot: strided batches, float32 (float64) accumulation as below
    const int batch = Dim(g.batch, "batch");
    const bool f64 = g.dtype == DType::kFloat64;
    const double alpha64 = 1.0, beta64 = g.accumulate ? 1.0 : 0.0;
    const float alpha32 = 1.0f, beta32 = g.accumulate ? 1.0f : 0.0f;
    SYMNET_CUBLAS_CALL(cublasGemmStridedBatchedEx(
        r.blas, op_b, op_a, n, m, k, f64 ? static_cast<const void*>(&alpha64) : &alpha32, b, t, ldb,
        g.k * g.n, a, t, lda, g.m * g.k, f64 ? static_cast<const void*>(&beta64) : &beta32, c, t,
        ldc, g.m * g.n, batch, f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return;
  }
  if (g.dtype == DType::kFloat64) {
    const double alpha = 1.0, beta = g.accumulate ? 1.0 : 0.0;
    SYMNET_CUBLAS_CALL(cublasGemmEx(r.blas, op_b, op_a, n, m, k, &alpha, b, t, ldb, a, t, lda,
                                    &beta, c, t, ldc, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT));
  } else {
    const float alpha = 1.0f, beta = g.accumulate ? 1.0f : 0.0f;
    SYMNET_CUBLAS_CALL(cublasGemmEx(r.blas, op_b, op_a, n, m, k, &alpha, b, t, ldb, a, t, lda,
                                    &beta, c, t, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

const void* Ones(int dev, DType t, int64_t len) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::pair<int, DType>, std::pair<void*, int64_t>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& entry = (*cache)[{dev, t}];
  if (entry.second < len) {
    const int64_t n = std::max<int64_t>(len, 1024);
    void* fresh =
        cuda::DeviceAlloc(static_cast<size_t>(n) * DTypeSize(t), dev);  // before freeing the old
    cuda::Fill(fresh, t, static_cast<size_t>(n), 1.0, dev);
    if (entry.first) {
      cuda::DeviceFree(entry.first, static_cast<size_t>(entry.second) * DTypeSize(t), dev);
      cuda::BumpScratchGeneration(dev);  // graphs captured with the old vector must be recaptured
    }
    entry.first = fresh;
    entry.second = n;
  }
  return entry.first;
}

}  // namespace cublas
}  // namespace ops
}  // namespace symnet
