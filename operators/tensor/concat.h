/*! \brief Concat's parameter and row geometry (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_TENSOR_CONCAT_H_
#define SYMNET_OPERATORS_TENSOR_CONCAT_H_

#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct ConcatParam : public dmlc::Parameter<ConcatParam> {
  int num_args;
  int dim;
  DMLC_DECLARE_PARAMETER(ConcatParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe(
        "Number of inputs to be concatenated.");
    DMLC_DECLARE_FIELD(dim).set_default(1).describe("The dimension to concatenate along.");
  }
};
inline int ConcatAxis(const ConcatParam& p, int ndim) {
  const int a = p.dim < 0 ? p.dim + ndim : p.dim;
  SYMNET_CHECK(a >= 0 && a < ndim)
      << "Concat dim " << p.dim << " is out of range for " << ndim << "-D inputs";
  return a;
}

/*! \brief (outer, row length) of each input in memory order, for copying rows. */
struct Rows {
  int64_t outer;
  std::vector<int64_t> len;
};

inline Rows MakeRows(const ConcatParam& p, const std::vector<TBlob>& parts) {
  const Shape& s0 = parts[0].shape_;
  const int a = ConcatAxis(p, s0.ndim());
  const bool cl = parts[0].channels_last() && a == 1;
  Rows r;
  r.outer = cl ? s0.Size() / s0[1] : s0.ProdRange(0, a);
  for (const auto& b : parts) {
    SYMNET_CHECK(b.layout_ == parts[0].layout_) << "Concat inputs must share one layout";
    r.len.push_back(cl ? b.shape_[1] : b.shape_.ProdRange(a, b.ndim()));
  }
  return r;
}

/*! \brief Copies part k ((outer, len) rows at column `off` of the (outer, total) whole) to or
 *  from the whole; element i of the part. */
template <int req, bool to_whole>
struct ConcatCopyKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* whole, T* part, int64_t len, int64_t total,
                                 int64_t off) {
    T* w = whole + (i / len) * total + off + i % len;
    if (to_whole) {
      AssignReq<req>(w, static_cast<AccType<T>>(part[i]));
    } else {
      AssignReq<req>(&part[i], static_cast<AccType<T>>(*w));
    }
  }
};

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_CONCAT_H_
