/*!
 * \brief Copies between channels-first and channels-last storage of one logical (outer, C, S)
 *  tensor (S: spatial positions): activations (N, C, H*W) and convolution weights
 *  (O, C/g, kh*kw) alike. A transpose of the (C, S) plane, so it runs on transpose's kernel
 *  (transpose.h); tests run it on the CPU against the CPU's _convert_layout.
 */
#ifndef SYMNET_OPERATORS_TENSOR_CHANNEL_COPY_H_
#define SYMNET_OPERATORS_TENSOR_CHANNEL_COPY_H_

#include "transpose.h"

namespace symnet {
namespace ops {

/*! \brief (outer, C, S) of a channels-first view: data (N, C, spatial...) or weights (O, C/g,
 * kernel...). */
struct ChannelDims3 {
  int64_t outer, c, s;
};
inline ChannelDims3 ChannelDimsOf(const Shape& s) { return {s[0], s[1], s.ProdRange(2, s.ndim())}; }

/*! \brief dst (req)= src, both holding the (outer, C, S) tensor `d`, each channels-first or -last.
 */
template <typename xpu>
void CopyChannels(const void* src, bool src_last, void* dst, bool dst_last, DType t,
                  const ChannelDims3& d, OpReqType req) {
  const Shape stored = src_last ? Shape{d.outer, d.s, d.c} : Shape{d.outer, d.c, d.s};
  const Shape wanted = dst_last ? Shape{d.outer, d.s, d.c} : Shape{d.outer, d.c, d.s};
  const std::vector<int> axes =
      src_last == dst_last ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 2, 1};
  TransposeBlob<xpu>(TBlob(const_cast<void*>(src), stored, t), axes, TBlob(dst, wanted, t), req);
}

/*! \brief CopyChannels<gpu>, enqueued on the current device's stream (defined in a .cu file). */
void CopyChannelsGPU(const void* src, bool src_last, void* dst, bool dst_last, DType t,
                     const ChannelDims3& d, OpReqType req);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_CHANNEL_COPY_H_
