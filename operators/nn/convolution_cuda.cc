/*!
 * \brief Convolution on a GPU: cuDNN (operators/cudnn/), one descriptor set per call site, NCHW
 *  or NHWC (a channels-last `layout`, or the GPU layout plan of 16-bit graphs).
 */
#include "convolution_cuda.h"

#include "../tensor/channel_copy.h"
#include "src/device/cuda_common.h"

namespace symnet {
namespace ops {

namespace {

struct CudnnConvState : public OpState {
  std::unique_ptr<cudnn::Convolution> conv;
  bool want_last = false;  // what the call site asked for
  bool last = false;       // what it runs: NCHW when cuDNN had no NHWC algorithm
};

std::unique_ptr<cudnn::Convolution> MakeConv(const OpContext& ctx, size_t workspace_limit,
                                             const ConvGeometry& g, DType t, bool last,
                                             bool backward) {
  cudnn::ConvLayouts l;
  l.x = l.w = l.y = last;
  auto conv = std::make_unique<cudnn::Convolution>(ctx.dev.id, g, t, l, workspace_limit);
  if (backward) conv->PrepareBackward();
  return conv;
}

}  // namespace

cudnn::Convolution& GetCudnnConv(const OpContext& ctx, size_t workspace_limit,
                                 const ConvGeometry& g, DType t, bool want_last, bool backward,
                                 bool* last) {
  auto& st = ctx.GetState<CudnnConvState>(
      [&] {
        auto* s = new CudnnConvState();
        s->want_last = s->last = want_last;
        try {
          s->conv = MakeConv(ctx, workspace_limit, g, t, want_last, backward);
        } catch (const std::exception& e) {
          if (!want_last) throw;
          LOG(WARNING) << "symnet: cuDNN has no NHWC algorithm for a " << t << " convolution ("
                       << e.what() << "); it runs in NCHW, with its operands copied";
          s->last = false;
          s->conv = MakeConv(ctx, workspace_limit, g, t, false, backward);
        }
        return s;
      },
      [&](const CudnnConvState& s) {
        cudnn::ConvLayouts l;
        l.x = l.w = l.y = s.last;
        return s.want_last == want_last && s.conv->Matches(ctx.dev.id, g, t, l);
      });
  *last = st.last;
  return *st.conv;
}

void* GpuOrderOps::Scratch(int dev, size_t bytes) { return cuda::LayoutScratch(dev, bytes); }
void GpuOrderOps::Copy(const void* src, bool src_last, void* dst, bool dst_last, DType t,
                       const ChannelDims3& d, OpReqType req) {
  CopyChannelsGPU(src, src_last, dst, dst_last, t, d, req);
}

bool RunChannelsLast(const TBlob& b) { return b.channels_last() && b.dtype_ != DType::kFloat64; }

namespace {

void ConvForwardGPU(const NodeAttrs& attrs, const OpContext& ctx,
                    const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                    const std::vector<TBlob>& given_out) {
  if (req[0] == kNullOp) return;
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const ConvGeometry g = MakeConvGeometry(p, given_in[0].shape_);
  const std::vector<TBlob> in = ConvViews(p, given_in), out = ConvViews(p, given_out);
  bool last = false;
  cudnn::Convolution& conv = GetCudnnConv(ctx, ConvWorkspaceLimit(p, ctx.workspace_cap_bytes), g,
                                          in[0].dtype_, RunChannelsLast(out[0]), false, &last);
  OneOrder order(ctx.dev.id, last);
  order.Plan(in[0]);
  order.Plan(in[1]);
  order.Plan(out[0]);
  const void* x = order.Input(0, in[0]);
  const void* w = order.Input(1, in[1]);
  conv.Forward(x, w, p.no_bias ? nullptr : in[2].dptr_, order.Output(2, out[0]),
               order.Req(2, req[0]));
  order.Commit(2, out[0], req[0]);
}

/*! \brief Inputs (dy, x, w); outputs (dx, dw[, db]). */
void ConvBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                     const std::vector<TBlob>& given_out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const ConvGeometry g = MakeConvGeometry(p, given_in[1].shape_);
  const std::vector<TBlob> in = ConvViews(p, given_in), out = ConvViews(p, given_out);
  bool last = false;
  cudnn::Convolution& conv = GetCudnnConv(ctx, ConvWorkspaceLimit(p, ctx.workspace_cap_bytes), g,
                                          in[1].dtype_, RunChannelsLast(in[0]), true, &last);
  OneOrder order(ctx.dev.id, last);
  order.Plan(in[0]);   // 0: dy
  order.Plan(in[1]);   // 1: x
  order.Plan(in[2]);   // 2: w
  order.Plan(out[0]);  // 3: dx
  order.Plan(out[1]);  // 4: dw
  // x serves only the filter gradient and w only the data gradient: copy what is used
  const void* dy = order.Input(0, in[0]);
  const void* x = req[1] != kNullOp ? order.Input(1, in[1]) : in[1].dptr_;
  const void* w = req[0] != kNullOp ? order.Input(2, in[2]) : in[2].dptr_;
  std::vector<OpReqType> r = req;
  r[0] = order.Req(3, req[0]);
  r[1] = order.Req(4, req[1]);
  conv.Backward(dy, x, w, order.Output(3, out[0]), order.Output(4, out[1]),
                p.no_bias ? nullptr : out[2].dptr_, r);
  order.Commit(3, out[0], req[0]);
  order.Commit(4, out[1], req[1]);
}

}  // namespace

SYMNET_REGISTER_OP(Convolution).set_attr<FCompute>("FCompute<gpu>", ConvForwardGPU);
SYMNET_REGISTER_OP(_backward_Convolution).set_attr<FCompute>("FCompute<gpu>", ConvBackwardGPU);

}  // namespace ops
}  // namespace symnet
