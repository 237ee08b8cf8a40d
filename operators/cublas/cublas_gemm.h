/*!
 * \brief Row-major GEMM on a GPU through cuBLAS (all cuBLAS calls go through this directory):
 *  C (+)= op(A) op(B) with float32 accumulation for 16-bit inputs (tensor cores) and float64
 *  for float64. Enqueued on the device's stream; no host sync.
 */
#ifndef SYMNET_OPERATORS_CUBLAS_CUBLAS_GEMM_H_
#define SYMNET_OPERATORS_CUBLAS_CUBLAS_GEMM_H_

#include <cstdint>

#include "symnet/dtype.h"

namespace symnet {
namespace ops {
namespace cublas {

struct Gemm {
  int64_t batch = 1;                      // matrices per operand, stored one after another
  int64_t m = 0, n = 0, k = 0;            // C is (m, n); op(A) is (m, k); op(B) is (k, n)
  bool trans_a = false, trans_b = false;  // A stored (k, m) / B stored (n, k) when set
  bool accumulate = false;                // C += instead of C =
  DType dtype = DType::kFloat32;          // of A, B and C
};

/*! \brief Runs `g` on GPU `dev`. */
void Run(int dev, const Gemm& g, const void* a, const void* b, void* c);

/*! \brief A device vector of `len` ones of dtype `t` (cached per device and dtype): bias terms
 *  and column sums are GEMMs with it. */
const void* Ones(int dev, DType t, int64_t len);

}  // namespace cublas
}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CUBLAS_CUBLAS_GEMM_H_
