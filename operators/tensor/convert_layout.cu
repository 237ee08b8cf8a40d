/*!
 * \brief _convert_layout on a GPU (default <-> channels-last; GPUs never use nChw16c) and the
 *  channel copies the GPU convolution uses to bring operands into one memory order.
 */
#include "../operator_common.h"
#include "channel_copy.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

void CopyChannelsGPU(const void* src, bool src_last, void* dst, bool dst_last, DType t,
                     const ChannelDims3& d, OpReqType req) {
  CopyChannels<gpu>(src, src_last, dst, dst_last, t, d, req);
}

namespace {

void ConvertLayoutGPU(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "_convert_layout cannot accumulate";
  const TBlob &x = in[0], &y = out[0];
  SYMNET_CHECK(!x.blocked() && !y.blocked()) << "_convert_layout: GPUs have no blocked layout";
  const ChannelDims3 d = ChannelDimsOf(x.shape_);
  CopyChannelsGPU(x.dptr_, x.channels_last(), y.dptr_, y.channels_last(), x.dtype_, d, kWriteTo);
}

}  // namespace

SYMNET_REGISTER_OP(_convert_layout).set_attr<FCompute>("FCompute<gpu>", ConvertLayoutGPU);

}  // namespace ops
}  // namespace symnet
