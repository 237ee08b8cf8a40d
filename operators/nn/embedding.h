/*!
 * \brief Embedding (MXNet 1.x): out[..., :] = weight[data[...], :]. It is take(weight, data,
 *  axis=0, mode='clip'), so it reuses take's index resolution, gather and deterministic gradient
 *  scatter (tensor/indexing.h); only the parameters and shape/type rules are its own.
 */
#ifndef SYMNET_OPERATORS_NN_EMBEDDING_H_
#define SYMNET_OPERATORS_NN_EMBEDDING_H_

#include <vector>

#include "../tensor/indexing.h"

namespace symnet {
namespace ops {

struct EmbeddingParam : public dmlc::Parameter<EmbeddingParam> {
  int input_dim;
  int output_dim;
  int dtype;
  bool sparse_grad;
  DMLC_DECLARE_PARAMETER(EmbeddingParam) {
    DMLC_DECLARE_FIELD(input_dim).describe("The number of rows of the weight (the vocabulary).");
    DMLC_DECLARE_FIELD(output_dim).describe("The length of each embedding vector.");
    DMLC_DECLARE_FIELD(dtype)
        .SYMNET_DTYPE_ENUM_NO_BOOL(dtype)
        .set_default(static_cast<int>(DType::kFloat32))
        .describe("The weight's and the output's dtype when the weight's dtype is not known.");
    DMLC_DECLARE_FIELD(sparse_grad)
        .set_default(false)
        .describe("A row_sparse weight gradient; not supported (must be False).");
  }
};

/*! \brief Inputs (data, weight). Indices outside [0, input_dim) are clipped, as MXNet does. */
template <typename xpu>
void EmbeddingForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const int64_t rows = in[1].shape_[0], cols = in[1].shape_[1];
  const int64_t* pos = ResolveIndices<xpu>(in[0], rows, kIndexClip, ctx, "Embedding");
  SYMNET_COPY_REQ_SWITCH(out[0].dtype_, req[0], T, Req, {
    Kernel<TakeKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[1].dptr<T>(), pos,
                                         in[0].Size(), rows, cols);
  });
}

/*! \brief Inputs (dy, data), output dweight: each of the output_dim columns is owned by one
 *  work item that adds the dy rows in index order, so the sums are the same on every run. */
template <typename xpu>
void EmbeddingBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) ZeroBlob(out[0]);
  if (in[0].Size() == 0) return;
  const int64_t rows = out[0].shape_[0], cols = out[0].shape_[1];
  const int64_t* pos = ResolveIndices<xpu>(in[1], rows, kIndexClip, ctx, "Embedding");
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    Kernel<TakeGradKernel, xpu>::Launch(cols, out[0].dptr<T>(), in[0].dptr<T>(), pos, in[1].Size(),
                                        rows, cols);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_EMBEDDING_H_
