/*! \brief LRN on a GPU: lrn.h's functors, one thread per element summing its window. */
#include "lrn.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

void LRNForwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (in[0].Size() == 0) return;
  LRNForwardLoop<gpu>(Param<LRNParam>(attrs), in[0], req[0], out[0]);
}

void LRNBackwardGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (in[1].Size() == 0) return;
  LRNBackwardLoop<gpu>(Param<LRNParam>(attrs), in[0], in[1], req[0], out[0]);
}

}  // namespace

SYMNET_REGISTER_OP(LRN).set_attr<FCompute>("FCompute<gpu>", LRNForwardGPU);
SYMNET_REGISTER_OP(_backward_LRN).set_attr<FCompute>("FCompute<gpu>", LRNBackwardGPU);

}  // namespace ops
}  // namespace symnet
