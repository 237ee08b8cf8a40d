/*! \brief Concat on a GPU: one copy kernel per input (no device table of pointers needed). */
#include "concat.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

template <bool to_whole>
void CopyPartsGPU(const Rows& r, const TBlob& whole, const std::vector<TBlob>& parts,
                  const std::vector<OpReqType>& req) {
  int64_t total = 0;
  for (auto l : r.len) total += l;
  int64_t off = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const OpReqType q = req[to_whole ? 0 : k];
    SYMNET_FLOAT_TYPE_SWITCH(whole.dtype_, T, {
      SYMNET_REQ_SWITCH(q, Req, {
        Kernel<ConcatCopyKernel<Req, to_whole>, gpu>::Launch(
            r.outer * r.len[k], whole.dptr<T>(), parts[k].dptr<T>(), r.len[k], total, off);
      });
    });
    off += r.len[k];
  }
}

void ConcatGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CopyPartsGPU<true>(MakeRows(Param<ConcatParam>(attrs), in), out[0], in, req);
}

void ConcatGradGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CopyPartsGPU<false>(MakeRows(Param<ConcatParam>(attrs), out), in[0], out, req);
}

}  // namespace

SYMNET_REGISTER_OP(Concat).set_attr<FCompute>("FCompute<gpu>", ConcatGPU);
SYMNET_REGISTER_OP(_backward_Concat).set_attr<FCompute>("FCompute<gpu>", ConcatGradGPU);

}  // namespace ops
}  // namespace symnet
