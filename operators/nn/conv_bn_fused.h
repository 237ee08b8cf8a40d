/*! \brief _FusedConvBN's kernel, shared by the CPU registration and the CUDA build's. */
#ifndef SYMNET_OPERATORS_NN_CONV_BN_FUSED_H_
#define SYMNET_OPERATORS_NN_CONV_BN_FUSED_H_

#include <vector>

#include "../operator_common.h"

namespace symnet {
namespace ops {

/*!
 * \brief Convolution -> BatchNorm (-> ReLU): folded into one oneDNN convolution for inference on
 *  the CPU, else the three kernels of the executor's device in turn.
 */
void FusedConvBNCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_CONV_BN_FUSED_H_
