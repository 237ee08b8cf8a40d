/*! \brief Convolution on a GPU: cuDNN (operators/cudnn/), one descriptor set per call site. */
#include "../cudnn/cudnn_convolution.h"
#include "convolution.h"

namespace symnet {
namespace ops {

namespace {

struct CudnnConvState : public OpState {
  std::unique_ptr<cudnn::Convolution> conv;
};

cudnn::Convolution& GetConv(const OpContext& ctx, const ConvGeometry& g, DType t) {
  auto& st = ctx.GetState<CudnnConvState>(
      [&] {
        auto* s = new CudnnConvState();
        s->conv = std::make_unique<cudnn::Convolution>(ctx.dev.id, g, t);
        return s;
      },
      [&](const CudnnConvState& s) { return s.conv->Matches(ctx.dev.id, g, t); });
  return *st.conv;
}

void ConvForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const ConvGeometry g = MakeConvGeometry(p, in[0].shape_);
  GetConv(ctx, g, in[0].dtype_).Forward(in[0].dptr_, in[1].dptr_, p.no_bias ? nullptr : in[2].dptr_,
                                         out[0].dptr_, req[0]);
}

/*! \brief Inputs (dy, x, w); outputs (dx, dw[, db]). */
void ConvBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const ConvGeometry g = MakeConvGeometry(p, in[1].shape_);
  GetConv(ctx, g, in[1].dtype_).Backward(in[0].dptr_, in[1].dptr_, in[2].dptr_, out[0].dptr_, out[1].dptr_,
                                          p.no_bias ? nullptr : out[2].dptr_, req);
}

}  // namespace

SYMNET_REGISTER_OP(Convolution).set_attr<FCompute>("FCompute<gpu>", ConvForwardGPU);
SYMNET_REGISTER_OP(_backward_Convolution).set_attr<FCompute>("FCompute<gpu>", ConvBackwardGPU);

}  // namespace ops
}  // namespace symnet
