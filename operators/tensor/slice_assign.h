/*!
 * \brief _slice_assign / _slice_assign_scalar (MXNet's, aliases _crop_assign and
 *  _crop_assign_scalar): the output is lhs with a strided box (slice's begin/end/step rules)
 *  replaced by rhs, or by one scalar. MXNet runs them in place (out=lhs) for x[a:b] = y; they have
 *  no gradient, as in MXNet.
 */
#ifndef SYMNET_OPERATORS_TENSOR_SLICE_ASSIGN_H_
#define SYMNET_OPERATORS_TENSOR_SLICE_ASSIGN_H_

#include <vector>

#include "bits_util.h"
#include "slice.h"

namespace symnet {
namespace ops {

struct SliceAssignScalarParam : public dmlc::Parameter<SliceAssignScalarParam> {
  double scalar;
  OptionalIntTuple begin, end, step;
  DMLC_DECLARE_PARAMETER(SliceAssignScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(0).describe("The value every box element gets.");
    DMLC_DECLARE_FIELD(begin).describe("Where the box starts in each dim (as slice's begin).");
    DMLC_DECLARE_FIELD(end).describe("Where the box stops (as slice's end).");
    DMLC_DECLARE_FIELD(step)
        .set_default(OptionalIntTuple())
        .describe("The step in each dim (as slice's step; empty: 1 everywhere).");
  }
};

/*! \brief The box of `whole` that begin/end/step select (slice's rules). */
inline SliceBox AssignBox(const OptionalIntTuple& begin, const OptionalIntTuple& end,
                          const OptionalIntTuple& step, const Shape& whole) {
  SliceParam p;
  p.begin = begin;
  p.end = end;
  p.step = step;
  return MakeBox(whole, SliceRanges(p, whole));
}

/*! \brief whole[box(i)] = v for every box element i. */
struct BoxFillKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* whole, T v, SliceBox b) {
    whole[b.Offset(i)] = v;
  }
};

/*! \brief out = lhs (no copy in place), then rhs into the box. */
template <typename xpu>
void SliceAssignForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "_slice_assign cannot accumulate into its output (req=add)";
  CopyCompute(attrs, ctx, {in[0]}, {req[0]}, {out[0]});
  const SliceParam& p = Param<SliceParam>(attrs);
  BoxCopy<xpu>(out[0], AssignBox(p.begin, p.end, p.step, out[0].shape_), in[1], true, kWriteTo);
}

/*! \brief out = data (no copy in place), then the scalar into the box (converted like full's). */
template <typename xpu>
void SliceAssignScalarForward(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo)
      << "_slice_assign_scalar cannot accumulate into its output (req=add)";
  CopyCompute(attrs, ctx, {in[0]}, {req[0]}, {out[0]});
  const SliceAssignScalarParam& p = Param<SliceAssignScalarParam>(attrs);
  const SliceBox b = AssignBox(p.begin, p.end, p.step, out[0].shape_);
  if (b.size == 0) return;
  SYMNET_TYPE_SWITCH(out[0].dtype_, T, {
    Kernel<BoxFillKernel, xpu>::Launch(b.size, out[0].dptr<T>(), CastValue<T>(p.scalar), b);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_SLICE_ASSIGN_H_
