/*! \brief The fused sum + ReLU ops' kernels for devices without a fused loop (add_relu.cc). */
#ifndef SYMNET_OPERATORS_TENSOR_ADD_RELU_H_
#define SYMNET_OPERATORS_TENSOR_ADD_RELU_H_

#include <vector>

#include "../operator_common.h"

namespace symnet {
namespace ops {

/*! \brief _FusedAddReLU as elemwise_add's then the ReLU's kernel of the call's device. */
void AddReLUByParts(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

/*! \brief _backward_FusedAddNReLU as add_n's then the ReLU gradient's kernel of the device. */
void SumReLUGradByParts(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_ADD_RELU_H_
