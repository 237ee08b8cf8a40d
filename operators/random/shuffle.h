/*!
 * \brief _shuffle (MXNet 1.x's mx.nd.random.shuffle): a random permutation of the first axis, so
 *  rows of a 2-D array move together. Row j gets 64 random bits from the call's stream (counter
 *  j); the rows are ordered by (bits, j), a uniformly random order. The CPU sorts (n log n); a
 *  GPU counts, for each row, the rows that come before it (n^2 comparisons, fine for the batch
 *  and data-set sizes shuffle is used on). Both give the same permutation for a seed.
 */
#ifndef SYMNET_OPERATORS_RANDOM_SHUFFLE_H_
#define SYMNET_OPERATORS_RANDOM_SHUFFLE_H_

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"
#include "symnet/random.h"

namespace symnet {
namespace ops {

/*! \brief True when row q comes before row j in the shuffled order. */
SYMNET_XINLINE bool ShuffledBefore(uint64_t key, int64_t q, int64_t j) {
  const uint64_t bq = RandomBitsAt(key, static_cast<uint64_t>(q));
  const uint64_t bj = RandomBitsAt(key, static_cast<uint64_t>(j));
  return bq < bj || (bq == bj && q < j);
}

/*! \brief rank[j] = the place of row j in the shuffled order (a GPU's ranking). */
struct ShuffleRankKernel {
  SYMNET_XINLINE static void Map(int64_t j, int64_t* rank, uint64_t key, int64_t n) {
    int64_t r = 0;
    for (int64_t q = 0; q < n; ++q) r += ShuffledBefore(key, q, j) ? 1 : 0;
    rank[j] = r;
  }
};

/*! \brief y[row rank[j]] = x[row j], element by element. */
template <int req>
struct ShuffleRowsKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t e, const T* x, T* y, const int64_t* rank, int64_t inner) {
    AssignReq<req>(&y[rank[e / inner] * inner + e % inner], x[e]);
  }
};

/*! \brief Scratch: the rank of each row. */
inline size_t ShuffleTempBytes(const NodeAttrs&, const std::vector<Shape>& in,
                               const std::vector<DType>&) {
  const Shape& s = in[0];
  return s.ndim() == 0 ? sizeof(int64_t) : static_cast<size_t>(s[0]) * sizeof(int64_t);
}

template <typename xpu = cpu>
void ShuffleCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob &x = in[0], &y = out[0];
  const int64_t size = x.Size();
  if (size == 0 || req[0] == kNullOp) return;
  SYMNET_CHECK(x.dptr_ != y.dptr_)
      << "_shuffle: the output must not be the input's array (it reads rows it has overwritten); "
         "give another out";
  const int64_t n = x.shape_.ndim() == 0 ? 1 : x.shape_[0];
  const int64_t inner = size / n;
  SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(n) * sizeof(int64_t))
      << "_shuffle: scratch too small";
  int64_t* rank = static_cast<int64_t*>(ctx.temp);
  const uint64_t key = NextRandomStream();
  if constexpr (std::is_same<xpu, gpu>::value) {
    Kernel<ShuffleRankKernel, xpu>::Launch(n, rank, key, n);
  } else {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), int64_t{0});
    std::sort(order.begin(), order.end(),
              [key](int64_t a, int64_t b) { return ShuffledBefore(key, a, b); });
    for (int64_t p = 0; p < n; ++p) rank[order[p]] = p;
  }
  SYMNET_TYPE_SWITCH(x.dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ShuffleRowsKernel<Req>, xpu>::Launch(size, x.dptr<T>(), y.dptr<T>(),
                                                  static_cast<const int64_t*>(rank), inner);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_RANDOM_SHUFFLE_H_
