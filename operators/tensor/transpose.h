/*!
 * \brief transpose (MXNet's: permutes the axes, reversing them by default), for the CPU and the
 *  GPU: a strided copy through the broadcast kernels' index map (BroadcastMap::Transposed).
 */
#ifndef SYMNET_OPERATORS_TENSOR_TRANSPOSE_H_
#define SYMNET_OPERATORS_TENSOR_TRANSPOSE_H_

#include <vector>

#include "broadcast_util.h"

namespace symnet {
namespace ops {

struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  Shape axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(Shape()).describe(
        "Output dim i is input dim axes[i] (negative values count from the end); empty reverses "
        "the axes.");
  }
};

/*! \brief The permutation for `ndim`-D data, validated: axes, or the reversal when empty. */
std::vector<int> TransposeAxes(const TransposeParam& p, int ndim);

/*! \brief out (req)= the input with its axes permuted by `axes`. */
template <typename xpu>
void TransposeBlob(const TBlob& in, const std::vector<int>& axes, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  const BroadcastMap m = BroadcastMap::Transposed(in.shape_, axes);
  SYMNET_FLOAT_TYPE_SWITCH(in.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<BroadcastToShapeKernel<Req>, xpu>::Launch(out.Size(), in.dptr<T>(), out.dptr<T>(), m,
                                                       AccType<T>(1));
    });
  });
}

template <typename xpu>
void TransposeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  TransposeBlob<xpu>(in[0], TransposeAxes(Param<TransposeParam>(attrs), in[0].ndim()), out[0],
                     req[0]);
}

/*! \brief The gradient: dy transposed back by the inverse permutation. */
template <typename xpu>
void TransposeGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<int> axes = TransposeAxes(Param<TransposeParam>(attrs), in[0].ndim());
  std::vector<int> inverse(axes.size());
  for (size_t d = 0; d < axes.size(); ++d) inverse[axes[d]] = static_cast<int>(d);
  TransposeBlob<xpu>(in[0], inverse, out[0], req[0]);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_TRANSPOSE_H_
