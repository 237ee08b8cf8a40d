/*! \brief dot and batch_dot on a GPU: the same GEMMs as on the CPU (dot.h), through cuBLAS. */
#include "../cublas/cublas_gemm.h"
#include "dot.h"

namespace symnet {
namespace ops {

namespace {

cublas::Gemm ToGemm(const DotGemm& d, DType t, OpReqType req) {
  cublas::Gemm g;
  g.batch = d.batch, g.m = d.m, g.n = d.n, g.k = d.k;
  g.trans_a = d.trans_a, g.trans_b = d.trans_b;
  g.dtype = t;
  g.accumulate = req == kAddTo;
  return g;
}

template <bool kBatched>
void DotForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  Shape o;
  const DotGeometry g =
      MakeDotGeometry(Param<DotParam>(attrs), in[0].shape_, in[1].shape_, kBatched, &o);
  cublas::Run(ctx.dev.id, ToGemm(DotGemms(g)[0], in[0].dtype_, req[0]), in[0].dptr_, in[1].dptr_,
              out[0].dptr_);
}

/*! \brief Inputs (dC, A, B); outputs (dA, dB). */
template <bool kBatched>
void DotBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  Shape o;
  const DotGeometry g =
      MakeDotGeometry(Param<DotParam>(attrs), in[1].shape_, in[2].shape_, kBatched, &o);
  const auto gemms = DotGemms(g);
  for (int i = 0; i < 2; ++i) {
    if (req[i] == kNullOp) continue;
    const DotGemm& d = gemms[i + 1];
    cublas::Run(ctx.dev.id, ToGemm(d, in[1].dtype_, req[i]), in[d.a].dptr_, in[d.b].dptr_,
                out[i].dptr_);
  }
}

}  // namespace

SYMNET_REGISTER_OP(dot).set_attr<FCompute>("FCompute<gpu>", DotForwardGPU<false>);
SYMNET_REGISTER_OP(_backward_dot).set_attr<FCompute>("FCompute<gpu>", DotBackwardGPU<false>);
SYMNET_REGISTER_OP(batch_dot).set_attr<FCompute>("FCompute<gpu>", DotForwardGPU<true>);
SYMNET_REGISTER_OP(_backward_batch_dot).set_attr<FCompute>("FCompute<gpu>", DotBackwardGPU<true>);

}  // namespace ops
}  // namespace symnet
