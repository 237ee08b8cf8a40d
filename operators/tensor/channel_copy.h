/*!
 * \brief Copies between channels-first and channels-last storage of one logical (outer, C, S)
 *  tensor (S: spatial positions): activations (N, C, H*W) and convolution weights
 *  (O, C/g, kh*kw) alike. Written as a SYMNET_XINLINE functor for the GPU, run on the CPU by
 *  tests against the CPU's _convert_layout.
 */
#ifndef SYMNET_OPERATORS_TENSOR_CHANNEL_COPY_H_
#define SYMNET_OPERATORS_TENSOR_CHANNEL_COPY_H_

#include "../kernel_launch.h"
#include "symnet/tensor.h"

namespace symnet {
namespace ops {

/*! \brief dst[i] (req)= the same logical element of src; one call per element of dst. */
template <int req>
struct ChannelCopyKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* src, T* dst, int64_t C, int64_t S, bool src_last,
                                 bool dst_last) {
    int64_t o, c, s;
    if (dst_last) {
      o = i / (S * C);
      s = (i / C) % S;
      c = i % C;
    } else {
      o = i / (C * S);
      c = (i / S) % C;
      s = i % S;
    }
    const int64_t j = src_last ? (o * S + s) * C + c : (o * C + c) * S + s;
    AssignReq<req>(&dst[i], static_cast<AccType<T>>(src[j]));
  }
};

/*!
 * \brief On the GPU (enqueued on the current device's stream): dst (req)= src, where both hold a
 *  logical (outer, C, S) tensor of dtype t, each channels-first or channels-last.
 */
void CopyChannelsGPU(const void* src, bool src_last, void* dst, bool dst_last, DType t, int64_t outer,
                     int64_t C, int64_t S, OpReqType req);

/*! \brief (outer, C, S) of a channels-first view: data (N, C, spatial...) or weights (O, C/g, kernel...). */
struct ChannelDims3 {
  int64_t outer, c, s;
};
inline ChannelDims3 ChannelDimsOf(const Shape& s) {
  return {s[0], s[1], s.ProdRange(2, s.ndim())};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_CHANNEL_COPY_H_
