/*! \brief GPU kernels of UpSampling: upsampling.h's nearest functors with xpu = gpu; bilinear
 *  runs Deconvolution's GPU kernels (deconvolution_cuda.cc). */
#include "src/device/kernel_launch.cuh"
#include "upsampling.h"

namespace symnet {
namespace ops {

namespace {

void UpForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == kUpBilinear)
    return DeconvForwardGPU(BilinearDeconvParam(p, in[0].shape_[1]), ctx, in, req, out);
  UpNearestForward<gpu>(p, in, req[0], out[0]);
}

void UpBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == kUpBilinear)
    return DeconvBackwardGPU(BilinearDeconvParam(p, in[1].shape_[1]), ctx, in, req, out);
  UpNearestBackward<gpu>(p, in[0], req, out);
}

}  // namespace

SYMNET_REGISTER_OP(UpSampling).set_attr<FCompute>("FCompute<gpu>", UpForwardGPU);
SYMNET_REGISTER_OP(_backward_UpSampling).set_attr<FCompute>("FCompute<gpu>", UpBackwardGPU);

}  // namespace ops
}  // namespace symnet
