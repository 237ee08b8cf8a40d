/*!
 * \brief The fused RNN op on a GPU: cuDNN's RNN (operators/cudnn/cudnn_rnn.h) for float32 and
 *  float16, else (float64, bfloat16, an empty sequence, SYMNET_CUDNN_RNN=0, a reserve sized
 *  without cuDNN's needs) the same steps as the CPU (rnn.h) with cuBLAS GEMMs and the
 *  element-wise kernels as CUDA grids, all on the device's stream.
 */
#include <memory>

#include "../cublas/cublas_gemm.h"
#include "../cudnn/cudnn_rnn.h"
#include "rnn.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

RnnGemmFn GpuGemm(const OpContext& ctx, DType t) {
  const int dev = ctx.dev.id;
  return [dev, t](const RnnGemm& r, const void* a, const void* b, void* c) {
    cublas::Gemm g;
    g.m = r.m, g.n = r.n, g.k = r.k;
    g.trans_a = r.trans_a, g.trans_b = r.trans_b;
    g.accumulate = r.accumulate;
    g.dtype = t;
    cublas::Run(dev, g, a, b, c);
  };
}

/*!
 * \brief Whether this call runs through cuDNN. Forward and backward decide alike from the same
 *  inputs (geometry, dtype, the reserve's size, SYMNET_CUDNN_RNN), so the backward reads the
 *  reserve its forward wrote.
 */
bool UseCudnn(const OpContext& ctx, const RnnGeom& g, DType t, const TBlob& reserve) {
  if (!cudnn::RnnEnabled()) return false;
  const size_t need = cudnn::RnnReserveBytes(ctx.dev.id, g, t);
  return need > 0 && need <= reserve.Size() * DTypeSize(reserve.dtype_);
}

struct CudnnRnnState : public OpState {
  std::unique_ptr<cudnn::Rnn> rnn;
};

cudnn::Rnn& GetCudnnRnn(const OpContext& ctx, const RnnGeom& g, DType t, const TBlob& reserve) {
  auto& st = ctx.GetState<CudnnRnnState>(
      [&] {
        auto* s = new CudnnRnnState();
        s->rnn = std::make_unique<cudnn::Rnn>(ctx.dev.id, g, t);
        return s;
      },
      [&](const CudnnRnnState& s) { return s.rnn->Matches(ctx.dev.id, g, t); });
  SYMNET_CHECK(st.rnn->ReserveBytes() <= reserve.Size() * DTypeSize(reserve.dtype_))
      << "internal error: the RNN's reserve holds " << reserve.Size() * DTypeSize(reserve.dtype_)
      << " bytes, cuDNN needs " << st.rnn->ReserveBytes();
  return *st.rnn;
}

void RNNForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RnnGeom g(Param<RNNParam>(attrs), in[0].shape_);
  const DType t = in[0].dtype_;
  if (UseCudnn(ctx, g, t, out.back())) {
    const bool lstm = g.mode == kLstm;
    GetCudnnRnn(ctx, g, t, out.back())
        .Forward(ctx.is_train, in[0].dptr_, in[1].dptr_, in[2].dptr_, lstm ? in[3].dptr_ : nullptr,
                 out.back().dptr_, out[0].dptr_, req[0], out[1].dptr_, req[1],
                 lstm ? out[2].dptr_ : nullptr, lstm ? req[2] : kNullOp);
    return;
  }
  RNNForwardCompute<gpu>(attrs, ctx, in, req, out, GpuGemm(ctx, t));
}

void RNNBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool lstm = Param<RNNParam>(attrs).mode == kLstm;
  const size_t xi = lstm ? 3 : 2;  // inputs: dy, dhy, (dcy), data, parameters, state, ...
  const RnnGeom g(Param<RNNParam>(attrs), in[xi].shape_);
  const DType t = in[xi].dtype_;
  if (UseCudnn(ctx, g, t, in.back())) {
    std::vector<OpReqType> r(req.begin(), req.end());
    r.resize(4, kNullOp);
    GetCudnnRnn(ctx, g, t, in.back())
        .Backward(in[0].dptr_, in[1].dptr_, lstm ? in[2].dptr_ : nullptr, in[xi].dptr_,
                  in[xi + 1].dptr_, in[xi + 2].dptr_, lstm ? in[xi + 3].dptr_ : nullptr,
                  in.back().dptr_, out[0].dptr_, out[1].dptr_, out[2].dptr_,
                  lstm ? out[3].dptr_ : nullptr, r);
    return;
  }
  RNNBackwardCompute<gpu>(attrs, ctx, in, req, out, GpuGemm(ctx, out[0].dtype_));
}

}  // namespace

SYMNET_REGISTER_OP(RNN).set_attr<FCompute>("FCompute<gpu>", RNNForwardGPU);
SYMNET_REGISTER_OP(_backward_RNN).set_attr<FCompute>("FCompute<gpu>", RNNBackwardGPU);

}  // namespace ops
}  // namespace symnet
