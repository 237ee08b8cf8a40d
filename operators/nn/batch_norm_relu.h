/*! \brief _FusedBatchNormReLU's kernels, shared by the CPU registration and the CUDA build's. */
#ifndef SYMNET_OPERATORS_NN_BATCH_NORM_RELU_H_
#define SYMNET_OPERATORS_NN_BATCH_NORM_RELU_H_

#include <vector>

#include "../operator_common.h"

namespace symnet {
namespace ops {

/*!
 * \brief BatchNorm -> ReLU: one oneDNN normalization with the ReLU fused on the CPU, else
 *  BatchNorm's and the ReLU's kernels of the call's device in turn. Outputs (output, mean, var,
 *  workspace: the ReLU mask).
 */
void FusedBatchNormReLUForward(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out);

/*! \brief Inputs (dy, y, x, gamma, mean, var, workspace); outputs (dx, dgamma, dbeta). */
void FusedBatchNormReLUBackward(const NodeAttrs& attrs, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_BATCH_NORM_RELU_H_
