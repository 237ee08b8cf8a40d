/*! \brief InstanceNorm on a GPU: norm_kernels.h's functors, one thread per (sample, channel). */
#include "instance_norm.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

void InstanceNormForwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  NormForward<gpu>(InstanceNormView(Param<InstanceNormParam>(attrs), in[0].shape_), in, req, out);
}

void InstanceNormBackwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  NormBackward<gpu>(InstanceNormView(Param<InstanceNormParam>(attrs), in[1].shape_), in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(InstanceNorm).set_attr<FCompute>("FCompute<gpu>", InstanceNormForwardGPU);
SYMNET_REGISTER_OP(_backward_InstanceNorm)
    .set_attr<FCompute>("FCompute<gpu>", InstanceNormBackwardGPU);

}  // namespace ops
}  // namespace symnet
