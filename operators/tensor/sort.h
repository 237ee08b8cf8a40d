/*!
 * \brief topk, sort and argsort (MXNet 1.x): parameters and kernels, templated on the device.
 *
 *  Each runs in two steps. First every element gets its rank in its row's order (stable: ties
 *  keep their index order; NaN counts as the largest value, as in NumPy): on the CPU a stable
 *  sort per row, on a GPU one thread per element counting the elements that come before it
 *  (quadratic in the row's length, fine for the axes these ops see). Then one shared kernel
 *  writes each element whose rank is below k to its place: a value, an index or a mask entry.
 *  The gradient ranks the input again and sends dy back to the elements that were taken.
 */
#ifndef SYMNET_OPERATORS_TENSOR_SORT_H_
#define SYMNET_OPERATORS_TENSOR_SORT_H_

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "../axis_split.h"
#include "../numeric_type_switch.h"
#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum TopKReturn : int { kTopKValue = 0, kTopKIndices = 1, kTopKMask = 2, kTopKBoth = 3 };

/*! \brief The dtypes MXNet 1.9.1 offers for index outputs. */
#define SYMNET_INDEX_DTYPE_ENUM(field)                        \
  add_enum("float16", static_cast<int>(DType::kFloat16))      \
      .add_enum("float32", static_cast<int>(DType::kFloat32)) \
      .add_enum("float64", static_cast<int>(DType::kFloat64)) \
      .add_enum("int32", static_cast<int>(DType::kInt32))     \
      .add_enum("int64", static_cast<int>(DType::kInt64))     \
      .add_enum("uint8", static_cast<int>(DType::kUint8))

struct TopKParam : public dmlc::Parameter<TopKParam> {
  dmlc::optional<int> axis;
  int k;
  int ret_typ;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(TopKParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("The axis to search; None searches the flattened input.");
    DMLC_DECLARE_FIELD(k).set_default(1).describe(
        "How many elements to take; k < 1 takes the whole axis, and a k past its length is cut "
        "to it.");
    DMLC_DECLARE_FIELD(ret_typ)
        .add_enum("value", kTopKValue)
        .add_enum("indices", kTopKIndices)
        .add_enum("mask", kTopKMask)
        .add_enum("both", kTopKBoth)
        .set_default(kTopKIndices)
        .describe(
            "What to return: the values, their indices, a 0/1 mask of the input's shape, or "
            "both values and indices.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Take the smallest elements instead of the largest.");
    DMLC_DECLARE_FIELD(dtype)
        .SYMNET_INDEX_DTYPE_ENUM(dtype)
        .set_default(static_cast<int>(DType::kFloat32))
        .describe("The dtype of the indices; it must hold every index of the axis exactly.");
  }
};

struct SortParam : public dmlc::Parameter<SortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  DMLC_DECLARE_PARAMETER(SortParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("The axis to sort; None sorts the flattened input.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe("Ascending (or descending) order.");
  }
};

struct ArgSortParam : public dmlc::Parameter<ArgSortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(ArgSortParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("The axis to sort; None sorts the flattened input.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe("Ascending (or descending) order.");
    DMLC_DECLARE_FIELD(dtype)
        .SYMNET_INDEX_DTYPE_ENUM(dtype)
        .set_default(static_cast<int>(DType::kFloat32))
        .describe("The dtype of the indices; it must hold every index of the axis exactly.");
  }
};

/*! \brief The rows of a sort: element j of row (o, i) is at (o * len + j) * inner + i; k of each
 *  row's len elements are taken. */
struct SortGeom {
  int64_t outer = 1, len = 1, inner = 1, k = 1;
  bool ascend = true;
  int64_t size() const { return outer * len * inner; }
};

/*! \brief The geometry of a sort over `axis` (none: the flattened input) taking k (< 1: all). */
inline SortGeom MakeSortGeom(const Shape& s, const dmlc::optional<int>& axis, int k, bool ascend) {
  SortGeom g;
  g.ascend = ascend;
  if (!axis.has_value()) {
    g.len = s.Size();
  } else {
    const AxisSplit sp = SplitAtAxis(s, axis.value());
    g.outer = sp.outer;
    g.len = sp.n;
    g.inner = sp.inner;
  }
  g.k = k < 1 || k > g.len ? g.len : k;
  return g;
}

/*! \brief True when value a (at index ia) comes before b (at ib) in the order: NaN is the largest
 *  value, and equal values keep their index order. */
template <typename A>
SYMNET_XINLINE bool SortsBefore(A a, int64_t ia, A b, int64_t ib, bool ascend) {
  const bool a_less = (a == a && b != b) || a < b;
  const bool b_less = (b == b && a != a) || b < a;
  return ascend ? (a_less || (!b_less && ia < ib)) : (b_less || (!a_less && ia < ib));
}

/*! \brief rank[e] = how many elements of e's row come before it (a GPU's ranking). */
struct CountRankKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t e, const T* x, int64_t* rank, SortGeom g) {
    using A = AccType<T>;
    const int64_t i = e % g.inner, j = (e / g.inner) % g.len, o = e / (g.inner * g.len);
    const T* row = x + o * g.len * g.inner + i;
    const A v = static_cast<A>(row[j * g.inner]);
    int64_t r = 0;
    for (int64_t q = 0; q < g.len; ++q)
      r += SortsBefore(static_cast<A>(row[q * g.inner]), q, v, j, g.ascend) ? 1 : 0;
    rank[e] = r;
  }
};

/*! \brief Ranks every element of x in its row, into rank (x's size). */
template <typename xpu, typename T>
void RankRows(const T* x, const SortGeom& g, int64_t* rank) {
  if constexpr (std::is_same<xpu, gpu>::value) {
    Kernel<CountRankKernel, xpu>::Launch(g.size(), x, rank, g);
  } else {
    using A = AccType<T>;
    const int64_t rows = g.outer * g.inner;
#pragma omp parallel
    {
      std::vector<int64_t> perm(g.len);
#pragma omp for
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t o = r / g.inner, i = r % g.inner;
        const T* row = x + o * g.len * g.inner + i;
        int64_t* rrow = rank + o * g.len * g.inner + i;
        std::iota(perm.begin(), perm.end(), int64_t{0});
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t p, int64_t q) {
          return SortsBefore(static_cast<A>(row[p * g.inner]), p, static_cast<A>(row[q * g.inner]),
                             q, g.ascend);
        });
        for (int64_t p = 0; p < g.len; ++p) rrow[perm[p] * g.inner] = p;
      }
    }
  }
}

/*! \brief For element e of rank < k: out[its place among the taken] = x[e] (as_index false) or
 *  its index along the axis (as_index true). Output rows have k elements. */
template <bool as_index>
struct TakeRankedKernel {
  template <typename T, typename O>
  SYMNET_XINLINE static void Map(int64_t e, const T* x, const int64_t* rank, O* out, SortGeom g) {
    const int64_t p = rank[e];
    if (p >= g.k) return;
    const int64_t i = e % g.inner, j = (e / g.inner) % g.len, o = e / (g.inner * g.len);
    const int64_t at = (o * g.k + p) * g.inner + i;
    if constexpr (!as_index) {
      out[at] = x[e];
    } else if constexpr (std::is_integral<O>::value || std::is_same<O, double>::value) {
      out[at] = static_cast<O>(j);
    } else {
      out[at] = O(static_cast<float>(j));  // exact: the shape rule bounds the axis for the dtype
    }
  }
};

/*! \brief mask[e] = 1 when e's rank is below k, else 0. */
struct RankMaskKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t e, const int64_t* rank, T* mask, SortGeom g) {
    mask[e] = T(static_cast<AccType<T>>(rank[e] < g.k ? 1 : 0));
  }
};

/*! \brief dx[e] (+)= dy at e's place when its rank is below k, else 0. */
template <int req>
struct RankedGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t e, T* dx, const T* dy, const int64_t* rank, SortGeom g) {
    using A = AccType<T>;
    const int64_t p = rank[e];
    A v = A(0);
    if (p < g.k) {
      const int64_t i = e % g.inner, o = e / (g.inner * g.len);
      v = static_cast<A>(dy[(o * g.k + p) * g.inner + i]);
    }
    AssignReq<req>(&dx[e], v);
  }
};

/*! \brief Scratch for the ranks: one int64 per input element. */
inline size_t RankTempBytes(const NodeAttrs&, const std::vector<Shape>& shapes,
                            const std::vector<DType>&) {
  return static_cast<size_t>(shapes.back().Size()) * sizeof(int64_t);
}

/*! \brief Writes a sort's outputs: values into `values` and indices into `indices` (either may
 *  be null), or a mask into `mask`. */
template <typename xpu>
void SortForward(const OpContext& ctx, const TBlob& x, const SortGeom& g, const TBlob* values,
                 const TBlob* indices, const TBlob* mask) {
  if (g.size() == 0) return;
  SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(g.size()) * sizeof(int64_t))
      << "scratch too small";
  int64_t* rank = static_cast<int64_t*>(ctx.temp);
  SYMNET_NUMERIC_TYPE_SWITCH(x.dtype_, T, {
    RankRows<xpu>(x.dptr<T>(), g, rank);
    if (values != nullptr) {
      Kernel<TakeRankedKernel<false>, xpu>::Launch(g.size(), x.dptr<T>(), rank, values->dptr<T>(),
                                                   g);
    }
    if (mask != nullptr) Kernel<RankMaskKernel, xpu>::Launch(g.size(), rank, mask->dptr<T>(), g);
    if (indices != nullptr) {
      SYMNET_TYPE_SWITCH(indices->dtype_, I, {
        Kernel<TakeRankedKernel<true>, xpu>::Launch(g.size(), x.dptr<T>(), rank, indices->dptr<I>(),
                                                    g);
      });
    }
  });
}

/*! \brief Inputs (dy of the values, x); output dx. Integers too: MXNet 1.x's topk sends an int
 *  dy back to the elements taken. */
template <typename xpu>
void SortBackward(const OpContext& ctx, const TBlob& dy, const TBlob& x, const SortGeom& g,
                  const TBlob& dx, OpReqType req) {
  if (req == kNullOp || g.size() == 0) return;
  int64_t* rank = static_cast<int64_t*>(ctx.temp);
  SYMNET_NUMERIC_TYPE_SWITCH(x.dtype_, T, {
    RankRows<xpu>(x.dptr<T>(), g, rank);
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<RankedGradKernel<Req>, xpu>::Launch(g.size(), dx.dptr<T>(), dy.dptr<T>(), rank, g);
    });
  });
}

template <typename xpu = cpu>
void TopKCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TopKParam& p = Param<TopKParam>(attrs);
  const SortGeom g = MakeSortGeom(in[0].shape_, p.axis, p.k, p.is_ascend);
  switch (p.ret_typ) {
    case kTopKValue:
      SortForward<xpu>(ctx, in[0], g, &out[0], nullptr, nullptr);
      break;
    case kTopKIndices:
      SortForward<xpu>(ctx, in[0], g, nullptr, &out[0], nullptr);
      break;
    case kTopKMask:
      SortForward<xpu>(ctx, in[0], g, nullptr, nullptr, &out[0]);
      break;
    default:
      SortForward<xpu>(ctx, in[0], g, &out[0], &out[1], nullptr);
  }
}

template <typename xpu = cpu>
void TopKGradCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TopKParam& p = Param<TopKParam>(attrs);
  SortBackward<xpu>(ctx, in[0], in[1], MakeSortGeom(in[1].shape_, p.axis, p.k, p.is_ascend), out[0],
                    req[0]);
}

template <typename xpu = cpu>
void SortCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SortParam& p = Param<SortParam>(attrs);
  SortForward<xpu>(ctx, in[0], MakeSortGeom(in[0].shape_, p.axis, 0, p.is_ascend), &out[0], nullptr,
                   nullptr);
}

template <typename xpu = cpu>
void SortGradCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SortParam& p = Param<SortParam>(attrs);
  SortBackward<xpu>(ctx, in[0], in[1], MakeSortGeom(in[1].shape_, p.axis, 0, p.is_ascend), out[0],
                    req[0]);
}

template <typename xpu = cpu>
void ArgSortCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ArgSortParam& p = Param<ArgSortParam>(attrs);
  SortForward<xpu>(ctx, in[0], MakeSortGeom(in[0].shape_, p.axis, 0, p.is_ascend), nullptr, &out[0],
                   nullptr);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_SORT_H_
