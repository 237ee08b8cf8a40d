/*! \brief GroupNorm on a GPU: norm_kernels.h's functors, one thread per (sample, group). */
#include "group_norm.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

void GroupNormForwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  NormForward<gpu>(GroupNormView(Param<GroupNormParam>(attrs), in[0].shape_), in, req, out);
}

void GroupNormBackwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  NormBackward<gpu>(GroupNormView(Param<GroupNormParam>(attrs), in[1].shape_), in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(GroupNorm).set_attr<FCompute>("FCompute<gpu>", GroupNormForwardGPU);
SYMNET_REGISTER_OP(_backward_GroupNorm).set_attr<FCompute>("FCompute<gpu>", GroupNormBackwardGPU);

}  // namespace ops
}  // namespace symnet
