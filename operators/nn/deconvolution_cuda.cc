/*!
 * \brief Deconvolution on a GPU: the call site's cuDNN convolution (convolution_cuda.h) run with
 *  the roles swapped (deconvolution.h), in NCHW or NHWC as Convolution's GPU kernels.
 */
#include "../tensor/elemwise_kernels.h"
#include "convolution_cuda.h"
#include "deconvolution.h"

namespace symnet {
namespace ops {

void DeconvForwardGPU(const DeconvolutionParam& p, const OpContext& ctx,
                      const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& given_out) {
  if (req[0] == kNullOp) return;
  const ConvGeometry g = MakeDeconvGeometry(p, given_in[0].shape_);
  if (g.n == 0) return;
  const std::vector<TBlob> in = DeconvViews(p, given_in), out = DeconvViews(p, given_out);
  bool last = false;
  cudnn::Convolution& conv =
      GetCudnnConv(ctx, CudnnWorkspaceLimit(p.workspace, p.cudnn_tune, ctx.workspace_cap_bytes), g,
                   in[0].dtype_, RunChannelsLast(out[0]), true, &last);
  OneOrder order(ctx.dev.id, last);
  order.Plan(in[0]);
  order.Plan(in[1]);
  order.Plan(out[0]);
  const void* x = order.Input(0, in[0]);
  const void* w = order.Input(1, in[1]);
  void* y = order.Output(2, out[0]);
  // y is the swapped convolution's data gradient; x plays its output gradient
  conv.Backward(x, nullptr, w, y, nullptr, nullptr, {order.Req(2, req[0]), kNullOp});
  if (!p.no_bias) conv.AddInputBias(in[2].dptr_, y);
  order.Commit(2, out[0], req[0]);
}

void DeconvBackwardGPU(const DeconvolutionParam& p, const OpContext& ctx,
                       const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                       const std::vector<TBlob>& given_out) {
  const ConvGeometry g = MakeDeconvGeometry(p, given_in[1].shape_);
  const std::vector<TBlob> in = DeconvViews(p, given_in), out = DeconvViews(p, given_out);
  if (g.n == 0) {
    // no samples: the gradients of weight and bias are empty sums
    for (size_t k = 1; k < out.size(); ++k)
      if (req[k] == kWriteTo || req[k] == kWriteInplace) ZeroBlob(out[k]);
    return;
  }
  bool last = false;
  cudnn::Convolution& conv =
      GetCudnnConv(ctx, CudnnWorkspaceLimit(p.workspace, p.cudnn_tune, ctx.workspace_cap_bytes), g,
                   in[1].dtype_, RunChannelsLast(in[0]), true, &last);
  OneOrder order(ctx.dev.id, last);
  order.Plan(in[0]);   // 0: dy
  order.Plan(in[1]);   // 1: x
  order.Plan(in[2]);   // 2: w
  order.Plan(out[0]);  // 3: dx
  order.Plan(out[1]);  // 4: dw
  const void* dy = order.Input(0, in[0]);
  // x serves only the weight gradient and w only the data gradient: copy what is used
  const void* x = req[1] != kNullOp ? order.Input(1, in[1]) : in[1].dptr_;
  const void* w = req[0] != kNullOp ? order.Input(2, in[2]) : in[2].dptr_;
  // dx = conv(dy, w); dw = the swapped convolution's filter gradient (its x is our dy, its
  // output gradient our x)
  conv.Forward(dy, w, nullptr, order.Output(3, out[0]), order.Req(3, req[0]));
  conv.Backward(x, dy, w, nullptr, order.Output(4, out[1]), nullptr,
                {kNullOp, order.Req(4, req[1])});
  if (!p.no_bias) conv.InputBiasGrad(dy, out[2].dptr_, req[2]);
  order.Commit(3, out[0], req[0]);
  order.Commit(4, out[1], req[1]);
}

namespace {

void DeconvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  DeconvForwardGPU(Param<DeconvolutionParam>(attrs), ctx, in, req, out);
}

void DeconvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  DeconvBackwardGPU(Param<DeconvolutionParam>(attrs), ctx, in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(Deconvolution).set_attr<FCompute>("FCompute<gpu>", DeconvForward);
SYMNET_REGISTER_OP(_backward_Deconvolution).set_attr<FCompute>("FCompute<gpu>", DeconvBackward);

}  // namespace ops
}  // namespace symnet
