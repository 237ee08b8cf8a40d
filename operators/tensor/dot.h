/*! \brief dot and batch_dot: parameters and the GEMMs they reduce to (shared by CPU and GPU). */
#ifndef SYMNET_OPERATORS_TENSOR_DOT_H_
#define SYMNET_OPERATORS_TENSOR_DOT_H_

#include <array>

#include "../operator_common.h"

namespace symnet {
namespace ops {

struct DotParam : public dmlc::Parameter<DotParam> {
  bool transpose_a;
  bool transpose_b;
  dmlc::optional<int> forward_stype;
  DMLC_DECLARE_PARAMETER(DotParam) {
    DMLC_DECLARE_FIELD(transpose_a)
        .set_default(false)
        .describe(
            "Contract lhs's first axis (dot) or use the transpose of each lhs matrix (batch_dot).");
    DMLC_DECLARE_FIELD(transpose_b)
        .set_default(false)
        .describe(
            "Contract rhs's last axis (dot) or use the transpose of each rhs matrix (batch_dot).");
    DMLC_DECLARE_FIELD(forward_stype)
        .add_enum("default", 0)
        .add_enum("csr", 1)
        .add_enum("row_sparse", 2)
        .set_default(dmlc::optional<int>())
        .describe("Storage type of the output; only dense ('default') is supported.");
  }
};

/*!
 * \brief The product as `batch` GEMMs C[m,n] = op(A) op(B), with A, B and C contiguous.
 *  dot flattens: lhs is (m, k) — or stored (k, m) with transpose_a — after merging the dims
 *  on either side of the contracted axis; batch_dot keeps the leading dims as the batch.
 */
struct DotGeometry {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

/*! \brief Geometry and output shape of dot (batched = false) or batch_dot; throws on a mismatch. */
DotGeometry MakeDotGeometry(const DotParam& p, const Shape& lhs, const Shape& rhs, bool batched,
                            Shape* out);

/*!
 * \brief One GEMM of the forward or backward pass: dims, transposes and which operands feed it.
 *  Operand indices: 0 = the output gradient dC, 1 = A, 2 = B (the forward uses 1 and 2).
 */
struct DotGemm {
  int64_t batch, m, n, k;
  bool trans_a, trans_b;
  int a, b;
};

/*! \brief [forward C = op(A) op(B), gradient of A, gradient of B], each in A's and B's storage. */
inline std::array<DotGemm, 3> DotGemms(const DotGeometry& g) {
  const int64_t B = g.batch, M = g.m, N = g.n, K = g.k;
  DotGemm fwd{B, M, N, K, g.trans_a, g.trans_b, 1, 2};
  // dA = dC op(B)^T, or stored transposed: dA^T = op(B) dC^T
  DotGemm da = g.trans_a ? DotGemm{B, K, M, N, g.trans_b, true, 2, 0}
                         : DotGemm{B, M, K, N, false, !g.trans_b, 0, 2};
  // dB = op(A)^T dC, or stored transposed: dB^T = dC^T op(A)
  DotGemm db = g.trans_b ? DotGemm{B, N, K, M, true, g.trans_a, 0, 1}
                         : DotGemm{B, K, N, M, !g.trans_a, false, 1, 0};
  return {fwd, da, db};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_DOT_H_
