/*! \brief GEMM for any float dtype: oneDNN matmul where native, float32 staging or a loop
 * otherwise. */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_GEMM_H_
#define SYMNET_OPERATORS_DNNL_DNNL_GEMM_H_

#include <memory>
#include <vector>

#include "symnet/dtype.h"

namespace symnet {
namespace dnnl_util {

/*!
 * \brief C[M,N] = op(A) op(B) (+ bias[N]) (+ C when accumulating), row-major, every operand of
 *  one dtype. op(A) is A[M,K] or, with trans_a, the transpose of a stored [K,M]; likewise B.
 *  With batch > 1 each operand holds `batch` such matrices one after another (batch_dot); a
 *  batched GEMM takes no bias.
 */
struct GemmConfig {
  int64_t batch = 1;
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  DType dtype = DType::kFloat32;
  bool bias = false;
  bool accumulate = false;
  bool operator==(const GemmConfig& o) const {
    return batch == o.batch && m == o.m && n == o.n && k == o.k && trans_a == o.trans_a &&
           trans_b == o.trans_b && dtype == o.dtype && bias == o.bias && accumulate == o.accumulate;
  }
};

/*!
 * \brief A prepared GEMM: build once (primitive creation is the expensive part), run many times.
 *  float32 and bfloat16 (on CPUs with bf16) run as one oneDNN matmul with float32 accumulation;
 *  float16 (and bfloat16 elsewhere) is converted to float32, multiplied, and rounded back;
 *  float64 uses a blocked OpenMP loop (used by gradient checks).
 */
class GemmPlan {
 public:
  explicit GemmPlan(const GemmConfig& cfg);
  ~GemmPlan();
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  void Run(const void* a, const void* b, void* c, const void* bias = nullptr);
  const GemmConfig& config() const { return cfg_; }
  /*! \brief "dnnl:<implementation>", "staged-f32:<implementation>", "loop" or "empty". */
  std::string Describe() const;

 private:
  void RunEmpty(void* c, const void* bias) const;
  struct Impl;
  GemmConfig cfg_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_GEMM_H_
