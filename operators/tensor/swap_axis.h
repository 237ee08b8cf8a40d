/*! \brief SwapAxis (alias swapaxes): a transpose that exchanges two axes, run by transpose.h's
 *  strided copy. Swapping twice is the identity, so the gradient is the same swap of dy. */
#ifndef SYMNET_OPERATORS_TENSOR_SWAP_AXIS_H_
#define SYMNET_OPERATORS_TENSOR_SWAP_AXIS_H_

#include <vector>

#include "transpose.h"

namespace symnet {
namespace ops {

struct SwapAxisParam : public dmlc::Parameter<SwapAxisParam> {
  int dim1, dim2;
  DMLC_DECLARE_PARAMETER(SwapAxisParam) {
    DMLC_DECLARE_FIELD(dim1).set_default(0).describe(
        "The first axis to swap; negative values count from the back.");
    DMLC_DECLARE_FIELD(dim2).set_default(0).describe(
        "The second axis to swap; negative values count from the back.");
  }
};

/*! \brief The permutation exchanging dim1 and dim2 of `in`, checked against its ndim. */
std::vector<int> SwapAxisPerm(const SwapAxisParam& p, const Shape& in);

/*! \brief Forward, and the gradient too (input dy, output dx). */
template <typename xpu>
void SwapAxisCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  TransposeBlob<xpu>(in[0], SwapAxisPerm(Param<SwapAxisParam>(attrs), in[0].shape_), out[0],
                     req[0]);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_SWAP_AXIS_H_
