/*! \brief argmax, argmin and argmax_channel: parameter, shapes and kernels, templated on the
 *  device. The indices come out as floats in the input's dtype, as in MXNet 1.x. */
#ifndef SYMNET_OPERATORS_TENSOR_ARGMAX_H_
#define SYMNET_OPERATORS_TENSOR_ARGMAX_H_

#include <vector>

#include "broadcast_util.h"

namespace symnet {
namespace ops {

struct ArgReduceParam : public dmlc::Parameter<ArgReduceParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(ArgReduceParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>())
        .describe("The axis to search; None searches the flattened input.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the searched axis as a dimension of size 1.");
  }
};

/*! \brief The first index of the largest (is_max) or smallest term along the reduced axis; a NaN
 *  counts as the extreme, as in NumPy and MXNet. */
template <bool is_max>
struct ArgReduceKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t j, const T* src, T* dst, ReduceDims r) {
    using A = AccType<T>;
    const T* base = src + r.KeptOffset(j);
    int64_t best = 0;
    A bv = static_cast<A>(base[0]);
    for (int64_t i = 1; i < r.num_reduced && bv == bv; ++i) {
      const A v = static_cast<A>(base[r.ReducedOffset(i)]);
      if (v != v || (is_max ? v > bv : v < bv)) {
        best = i;
        bv = v;
      }
    }
    dst[j] = T(static_cast<A>(best));
  }
};

/*! \brief The searched input's shape and the keepdims shape: the flattened input for axis None. */
inline void ArgReduceShapes(const dmlc::optional<int>& axis, const Shape& in, Shape* src,
                            Shape* kd) {
  if (!axis.has_value()) {
    *src = Shape{in.Size()};
    *kd = Shape{1};
    return;
  }
  const int a = axis.value() < 0 ? axis.value() + in.ndim() : axis.value();
  *src = in;
  *kd = in;
  (*kd)[a] = 1;
}

template <bool is_max, typename xpu = cpu>
void ArgReduce(const dmlc::optional<int>& axis, const TBlob& in, const TBlob& out) {
  Shape src, kd;
  ArgReduceShapes(axis, in.shape_, &src, &kd);
  if (kd.Size() == 0) return;
  const ReduceDims r = MakeReduceDims(src, kd);
  SYMNET_FLOAT_TYPE_SWITCH(in.dtype_, T, {
    Kernel<ArgReduceKernel<is_max>, xpu>::Launch(kd.Size(), in.dptr<T>(), out.dptr<T>(), r);
  });
}

template <bool is_max, typename xpu = cpu>
void ArgReduceCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  ArgReduce<is_max, xpu>(Param<ArgReduceParam>(attrs).axis, in[0], out[0]);
}

/*! \brief argmax_channel: argmax over axis 1 (the channels of an (N, C, ...) input). */
template <typename xpu = cpu>
void ArgmaxChannelCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  ArgReduce<true, xpu>(dmlc::optional<int>(1), in[0], out[0]);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_ARGMAX_H_
