/*!
 * \brief reverse (alias flip): a strided copy whose reversed axes step backwards. The index map
 *  is the broadcast kernels' (BroadcastMap) with those axes' strides negated and the start moved
 *  to their last element, so one kernel serves the CPU and a GPU. The gradient is the same
 *  reversal of dy.
 */
#ifndef SYMNET_OPERATORS_TENSOR_REVERSE_H_
#define SYMNET_OPERATORS_TENSOR_REVERSE_H_

#include <vector>

#include "broadcast_util.h"

namespace symnet {
namespace ops {

struct ReverseParam : public dmlc::Parameter<ReverseParam> {
  Shape axis;
  DMLC_DECLARE_PARAMETER(ReverseParam) {
    DMLC_DECLARE_FIELD(axis).describe(
        "The axes to reverse, 0 to ndim-1 (MXNet 1.9.1 takes no negative axes here). An axis "
        "listed twice is reversed twice, i.e. left as it is.");
  }
};

/*! \brief Which axes of `in` are reversed (an odd number of times), checked against its ndim. */
std::vector<bool> ReversedAxes(const ReverseParam& p, const Shape& in);

/*! \brief out (req)= in with the axes `flip` marks reversed; any dtype. */
template <typename xpu>
void ReverseBlob(const TBlob& in, const std::vector<bool>& flip, const TBlob& out, OpReqType req) {
  if (req == kNullOp || out.Size() == 0) return;
  BroadcastMap m(in.shape_, in.shape_);
  int64_t start = 0;  // the input offset of output element 0
  for (int d = 0; d < m.ndim; ++d) {
    if (!flip[d]) continue;
    start += (m.out_shape[d] - 1) * m.in_stride[d];
    m.in_stride[d] = -m.in_stride[d];
  }
  SYMNET_TYPE_SWITCH(in.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<BroadcastToShapeKernel<Req>, xpu>::Launch(out.Size(), in.dptr<T>() + start,
                                                       out.dptr<T>(), m, AccType<T>(1));
    });
  });
}

/*! \brief Forward, and the gradient too (input dy, output dx): reversing is its own inverse. */
template <typename xpu>
void ReverseCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ReverseBlob<xpu>(in[0], ReversedAxes(Param<ReverseParam>(attrs), in[0].shape_), out[0], req[0]);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_REVERSE_H_
