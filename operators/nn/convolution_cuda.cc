/*! \brief Convolution on a GPU: cuDNN (operators/cudnn/), one descriptor set per call site. */
#include "../cudnn/cudnn_convolution.h"
#include "convolution.h"

namespace symnet {
namespace ops {

namespace {

struct CudnnConvState : public OpState {
  std::unique_ptr<cudnn::Convolution> conv;
};

cudnn::Convolution& GetConv(const OpContext& ctx, const ConvGeometry& g, DType t, const TBlob& x,
                            const TBlob& w, const TBlob& y) {
  cudnn::ConvLayouts l;
  l.x = x.channels_last();
  l.w = w.channels_last();
  l.y = y.channels_last();
  auto& st = ctx.GetState<CudnnConvState>(
      [&] {
        auto* s = new CudnnConvState();
        s->conv = std::make_unique<cudnn::Convolution>(ctx.dev.id, g, t, l);
        return s;
      },
      [&](const CudnnConvState& s) { return s.conv->Matches(ctx.dev.id, g, t, l); });
  return *st.conv;
}

void ConvForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& given_in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const ConvGeometry g = MakeConvGeometry(p, given_in[0].shape_);
  const std::vector<TBlob> in = ConvViews(p, given_in), out = ConvViews(p, given_out);
  GetConv(ctx, g, in[0].dtype_, in[0], in[1], out[0])
      .Forward(in[0].dptr_, in[1].dptr_, p.no_bias ? nullptr : in[2].dptr_, out[0].dptr_, req[0]);
}

/*! \brief Inputs (dy, x, w); outputs (dx, dw[, db]). */
void ConvBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& given_in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const ConvGeometry g = MakeConvGeometry(p, given_in[1].shape_);
  const std::vector<TBlob> in = ConvViews(p, given_in), out = ConvViews(p, given_out);
  SYMNET_CHECK(in[1].channels_last() == out[0].channels_last() && in[2].channels_last() == out[1].channels_last())
      << "GPU convolution backward: each gradient must be stored like its input";
  GetConv(ctx, g, in[1].dtype_, in[1], in[2], in[0])
      .Backward(in[0].dptr_, in[1].dptr_, in[2].dptr_, out[0].dptr_, out[1].dptr_,
                p.no_bias ? nullptr : out[2].dptr_, req);
}

}  // namespace

SYMNET_REGISTER_OP(Convolution).set_attr<FCompute>("FCompute<gpu>", ConvForwardGPU);
SYMNET_REGISTER_OP(_backward_Convolution).set_attr<FCompute>("FCompute<gpu>", ConvBackwardGPU);

}  // namespace ops
}  // namespace symnet
