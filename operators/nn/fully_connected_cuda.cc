/*!
 * \brief FullyConnected on a GPU: Y = X W^T (+ 1 b^T), dX = dY W, dW = dY^T X, db = dY^T 1, all
 *  as cuBLAS GEMMs (bias and its gradient are GEMMs with a ones vector, so no extra kernels).
 */
#include "../cublas/cublas_gemm.h"
#include "fully_connected.h"

namespace symnet {
namespace ops {

namespace {

void FCForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const auto mk = InputMatrix(p, in[0].shape_);
  const int dev = ctx.dev.id;
  cublas::Gemm g;
  g.m = mk.first, g.k = mk.second, g.n = p.num_hidden;
  g.trans_b = true;  // W is stored (n, k)
  g.dtype = in[0].dtype_;
  g.accumulate = req[0] == kAddTo;
  cublas::Run(dev, g, in[0].dptr_, in[1].dptr_, out[0].dptr_);
  if (!p.no_bias) {  // Y += ones(m, 1) b(1, n)
    cublas::Gemm bias;
    bias.m = g.m, bias.n = g.n, bias.k = 1, bias.dtype = g.dtype, bias.accumulate = true;
    cublas::Run(dev, bias, cublas::Ones(dev, g.dtype, g.m), in[2].dptr_, out[0].dptr_);
  }
}

/*! \brief Inputs (dy, x, w); outputs (dx, dw[, db]). */
void FCBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const auto mk = InputMatrix(p, in[1].shape_);
  const int64_t m = mk.first, k = mk.second, n = p.num_hidden;
  const int dev = ctx.dev.id;
  const DType t = in[1].dtype_;
  if (req[0] != kNullOp) {  // dx[m, k] = dy[m, n] W[n, k]
    cublas::Gemm g;
    g.m = m, g.n = k, g.k = n, g.dtype = t, g.accumulate = req[0] == kAddTo;
    cublas::Run(dev, g, in[0].dptr_, in[2].dptr_, out[0].dptr_);
  }
  if (req[1] != kNullOp) {  // dW[n, k] = dy^T X
    cublas::Gemm g;
    g.m = n, g.n = k, g.k = m, g.trans_a = true, g.dtype = t, g.accumulate = req[1] == kAddTo;
    cublas::Run(dev, g, in[0].dptr_, in[1].dptr_, out[1].dptr_);
  }
  if (!p.no_bias && req[2] != kNullOp) {  // db[n, 1] = dy^T ones(m, 1)
    cublas::Gemm g;
    g.m = n, g.n = 1, g.k = m, g.trans_a = true, g.dtype = t, g.accumulate = req[2] == kAddTo;
    cublas::Run(dev, g, in[0].dptr_, cublas::Ones(dev, t, m), out[2].dptr_);
  }
}

}  // namespace

SYMNET_REGISTER_OP(FullyConnected).set_attr<FCompute>("FCompute<gpu>", FCForwardGPU);
SYMNET_REGISTER_OP(_backward_FullyConnected).set_attr<FCompute>("FCompute<gpu>", FCBackwardGPU);

}  // namespace ops
}  // namespace symnet
