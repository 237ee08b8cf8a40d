/*!
 * \brief The ops that take a box out of an array: slice (begin/end/step per dim, NumPy's rules),
 *  slice_axis (one axis), slice_like (the leading corner of another array's shape) and
 *  SliceChannel/split (equal parts along one axis). Each forward copies the box out; each
 *  gradient writes the output gradient back into the box (zeros elsewhere). diag's diagonals
 *  are boxes too (diag.h).
 *
 *  A box is described once (SliceBox: per-dim counts and strides into the whole array) and
 *  copied by BoxCopy<xpu>: on the CPU by rows (slice.cc), contiguous rows as plain loops the
 *  compiler vectorises; on a GPU one thread per element (BoxCopyKernel, slice.cu / split.cu).
 */
#ifndef SYMNET_OPERATORS_TENSOR_SLICE_H_
#define SYMNET_OPERATORS_TENSOR_SLICE_H_

#include <dmlc/optional.h>

#include <iosfwd>
#include <optional>
#include <vector>

#include "../operator_common.h"
#include "elemwise_kernels.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*! \brief MXNet's tuple of optional ints: "(None, 1, -2)"; None takes the default of its dim. */
struct OptionalIntTuple {
  std::vector<std::optional<int64_t>> values;
  bool operator==(const OptionalIntTuple& o) const { return values == o.values; }
  size_t size() const { return values.size(); }
};
std::ostream& operator<<(std::ostream& os, const OptionalIntTuple& t);
std::istream& operator>>(std::istream& is, OptionalIntTuple& t);

struct SliceParam : public dmlc::Parameter<SliceParam> {
  OptionalIntTuple begin, end, step;
  DMLC_DECLARE_PARAMETER(SliceParam) {
    DMLC_DECLARE_FIELD(begin).describe(
        "Where the box starts in each of the first len(begin) dims; negative values count from "
        "the back, None is the start (the end for a negative step).");
    DMLC_DECLARE_FIELD(end).describe(
        "Where the box stops (exclusive), one per entry of begin; negative values count from the "
        "back, None runs to the end (the start for a negative step). Out-of-range values are "
        "clamped, as in NumPy.");
    DMLC_DECLARE_FIELD(step)
        .set_default(OptionalIntTuple())
        .describe("The step in each dim (empty: 1 everywhere); negative steps go backwards.");
  }
};

struct SliceAxisParam : public dmlc::Parameter<SliceAxisParam> {
  int axis;
  int begin;
  dmlc::optional<int> end;
  DMLC_DECLARE_PARAMETER(SliceAxisParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axis to slice; negative values count from the back.");
    DMLC_DECLARE_FIELD(begin).describe(
        "The first index taken along the axis; negative values count from the back.");
    DMLC_DECLARE_FIELD(end).describe(
        "The index the slice stops before; None is the axis' length, negative values count "
        "from the back. Unlike slice, an out-of-range or empty range is an error (as MXNet).");
  }
};

struct SliceLikeParam : public dmlc::Parameter<SliceLikeParam> {
  Shape axes;
  DMLC_DECLARE_PARAMETER(SliceLikeParam) {
    DMLC_DECLARE_FIELD(axes)
        .set_default(Shape::Scalar())
        .describe(
            "The axes to cut to shape_like's length (negative values count from the back); "
            "empty: every axis, and then data and shape_like must have the same number of dims.");
  }
};

struct SplitParam : public dmlc::Parameter<SplitParam> {
  int num_outputs;
  int axis;
  bool squeeze_axis;
  DMLC_DECLARE_PARAMETER(SplitParam) {
    DMLC_DECLARE_FIELD(num_outputs)
        .set_lower_bound(1)
        .describe("The number of equal parts; it must divide the axis' length.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe(
        "The axis to split; negative values count from the back.");
    DMLC_DECLARE_FIELD(squeeze_axis)
        .set_default(false)
        .describe(
            "Drop the split axis from the outputs; the axis' length must then equal "
            "num_outputs (each part is one index thick).");
  }
};

/*! \brief Which indices of one dim a box takes: begin, begin + step, ... (count of them). */
struct DimRange {
  int64_t begin = 0, step = 1, count = 0;
};

/*! \brief Dims a box may keep after merging; more strided dims than this is an error. */
constexpr int kMaxSliceDim = 8;

/*!
 * \brief A box of a row-major array: box element i (in row-major order over `shape`) is the whole
 *  array's element offset + sum_d digit_d(i) * stride[d]. Dims of count 1 are dropped and dims
 *  that run on contiguously are merged, so a box of whole rows is one long row.
 */
struct SliceBox {
  int ndim = 0;
  int64_t shape[kMaxSliceDim];
  int64_t stride[kMaxSliceDim];
  int64_t offset = 0;
  int64_t size = 0;

  SYMNET_XINLINE int64_t Offset(int64_t i) const {
    int64_t off = offset;
    for (int d = ndim - 1; d >= 0; --d) {
      off += (i % shape[d]) * stride[d];
      i /= shape[d];
    }
    return off;
  }
};

/*! \brief The box of `whole` that the per-dim ranges select (one range per dim of whole). */
SliceBox MakeBox(const Shape& whole, const std::vector<DimRange>& ranges);

/*! \brief slice's ranges for an input of this shape, checked (MXNet's messages' content). */
std::vector<DimRange> SliceRanges(const SliceParam& p, const Shape& in);
/*! \brief slice_axis's ranges for an input of this shape, checked. */
std::vector<DimRange> SliceAxisRanges(const SliceAxisParam& p, const Shape& in);
/*! \brief The split axis in [0, ndim), checked. */
int SplitAxis(const SplitParam& p, const Shape& in);

/*! \brief The box of an op's forward input `whole` whose elements make up `part`, the forward
 *  output (from the node's params; slice_like needs only the two shapes). */
using BoxOfFn = SliceBox (*)(const NodeAttrs& attrs, const Shape& whole, const Shape& part);
SliceBox SliceBoxOf(const NodeAttrs& attrs, const Shape& whole, const Shape& part);
SliceBox SliceAxisBoxOf(const NodeAttrs& attrs, const Shape& whole, const Shape& part);
/*! \brief slice_like's box: the leading corner of `whole` of `part`'s shape. */
SliceBox CornerBoxOf(const NodeAttrs& attrs, const Shape& whole, const Shape& part);
/*! \brief Part k of a split of `in`. */
SliceBox SplitBox(const SplitParam& p, const Shape& in, int k);

/*! \brief One box element per call: part[i] (req)= whole[box(i)], or whole[box(i)] (req)= part[i]
 *  when to_whole. Used with xpu = gpu; the CPU copies by rows instead. */
template <int req, bool to_whole>
struct BoxCopyKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* whole, T* part, SliceBox b) {
    T* w = whole + b.Offset(i);
    if (to_whole) {
      AssignReq<req>(w, static_cast<AccType<T>>(part[i]));
    } else {
      AssignReq<req>(&part[i], static_cast<AccType<T>>(*w));
    }
  }
};

/*!
 * \brief Copies between a box of `whole` and the dense array `part` (the box's elements in
 *  order; its shape may differ, e.g. a squeezed axis), honouring req (kAddTo accumulates,
 *  kNullOp does nothing). The GPU form (one thread per element) is this template; the CPU's is
 *  the specialisation in slice.cc.
 */
template <typename xpu>
void BoxCopy(const TBlob& whole, const SliceBox& b, const TBlob& part, bool to_whole,
             OpReqType req) {
  if (req == kNullOp || b.size == 0) return;
  SYMNET_TYPE_SWITCH(whole.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      if (to_whole) {
        Kernel<BoxCopyKernel<Req, true>, xpu>::Launch(b.size, whole.dptr<T>(), part.dptr<T>(), b);
      } else {
        Kernel<BoxCopyKernel<Req, false>, xpu>::Launch(b.size, whole.dptr<T>(), part.dptr<T>(), b);
      }
    });
  });
}
template <>
void BoxCopy<cpu>(const TBlob& whole, const SliceBox& b, const TBlob& part, bool to_whole,
                  OpReqType req);
// instantiated once, in slice.cu, for every .cu file that copies boxes
extern template void BoxCopy<gpu>(const TBlob& whole, const SliceBox& b, const TBlob& part,
                                  bool to_whole, OpReqType req);

/*! \brief Forward of slice / slice_axis / slice_like: the box of the input. */
template <typename xpu, BoxOfFn box_of>
void BoxForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  BoxCopy<xpu>(in[0], box_of(attrs, in[0].shape_, out[0].shape_), out[0], false, req[0]);
}

/*! \brief Their gradient (input dy, output dx of the forward input's shape): dy into the box and
 *  zeros around it; with kAddTo, dy is added into the box and the rest is left as it was. */
template <typename xpu, BoxOfFn box_of>
void BoxBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SliceBox b = box_of(attrs, out[0].shape_, in[0].shape_);
  if (req[0] != kAddTo) ZeroBlob(out[0]);
  BoxCopy<xpu>(out[0], b, in[0], true, req[0] == kAddTo ? kAddTo : kWriteTo);
}

/*! \brief SliceChannel's forward: part k of the input into output k. */
template <typename xpu>
void SplitForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SplitParam& p = Param<SplitParam>(attrs);
  for (size_t k = 0; k < out.size(); ++k)
    BoxCopy<xpu>(in[0], SplitBox(p, in[0].shape_, static_cast<int>(k)), out[k], false, req[k]);
}

/*! \brief Its gradient: output gradient k into part k. The parts tile the input, so a write
 *  needs no zeroing first. */
template <typename xpu>
void SplitBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SplitParam& p = Param<SplitParam>(attrs);
  const OpReqType q = req[0] == kAddTo ? kAddTo : kWriteTo;
  for (size_t k = 0; k < in.size(); ++k)
    BoxCopy<xpu>(out[0], SplitBox(p, out[0].shape_, static_cast<int>(k)), in[k], true, q);
}

}  // namespace ops
}  // namespace symnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(symnet::ops::OptionalIntTuple, "Shape(tuple)");
}  // namespace dmlc

#endif  // SYMNET_OPERATORS_TENSOR_SLICE_H_
