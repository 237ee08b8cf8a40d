/*! \brief LayerNorm on a GPU: norm_kernels.h's functors, one thread per normalized group. */
#include "layer_norm.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

void LayerNormForwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  NormForward<gpu>(LayerNormView(Param<LayerNormParam>(attrs), in[0].shape_), in, req, out);
}

void LayerNormBackwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  NormBackward<gpu>(LayerNormView(Param<LayerNormParam>(attrs), in[1].shape_), in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(LayerNorm).set_attr<FCompute>("FCompute<gpu>", LayerNormForwardGPU);
SYMNET_REGISTER_OP(_backward_LayerNorm).set_attr<FCompute>("FCompute<gpu>", LayerNormBackwardGPU);

}  // namespace ops
}  // namespace symnet
