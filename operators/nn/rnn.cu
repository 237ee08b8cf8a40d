/*!
 * \brief The fused RNN op on a GPU: the same steps as the CPU (rnn.h), with cuBLAS GEMMs and the
 *  element-wise kernels as CUDA grids, all on the device's stream.
 */
#include "../cublas/cublas_gemm.h"
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

void RNNForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  RNNForwardCompute<gpu>(attrs, ctx, in, req, out, GpuGemm(ctx, in[0].dtype_));
}

void RNNBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  RNNBackwardCompute<gpu>(attrs, ctx, in, req, out, GpuGemm(ctx, out[0].dtype_));
}

}  // namespace

SYMNET_REGISTER_OP(RNN).set_attr<FCompute>("FCompute<gpu>", RNNForwardGPU);
SYMNET_REGISTER_OP(_backward_RNN).set_attr<FCompute>("FCompute<gpu>", RNNBackwardGPU);

}  // namespace ops
}  // namespace symnet
