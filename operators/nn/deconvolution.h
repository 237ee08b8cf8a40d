/*!
 * \brief Deconvolution (transposed convolution) parameters, geometry and bias kernels.
 *
 *  A deconvolution of x (N, C, in...) with weights (C, F/g, kernel...) is the data gradient of
 *  the convolution that maps its output (N, F, out...) back to x: the convolution whose input
 *  has F channels and size `out`, whose output has C channels and size `in`, and whose weights
 *  (C, F/g, kernel...) are the deconvolution's as they are. The kernels therefore run the
 *  convolution machinery with the roles swapped (MakeDeconvGeometry gives that convolution):
 *    forward      y  = conv backward-data(x, w)
 *    data grad    dx = conv forward(dy, w)
 *    weight grad  dw = conv backward-weights(src = dy, diff_dst = x)
 *  The bias sits on the convolution's input side, so it has its own kernels here.
 */
#ifndef SYMNET_OPERATORS_NN_DECONVOLUTION_H_
#define SYMNET_OPERATORS_NN_DECONVOLUTION_H_

#include <vector>

#include "../operator_common.h"
#include "convolution.h"
#include "data_layout.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct DeconvolutionParam : public dmlc::Parameter<DeconvolutionParam> {
  Shape kernel, stride, dilate, pad, adj, target_shape;
  int num_filter;
  int num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(DeconvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe(
        "Deconvolution kernel size: (w,), (h, w) or (d, h, w), the kernel of the corresponding "
        "convolution.");
    DMLC_DECLARE_FIELD(stride).set_default(Shape()).describe(
        "Stride of the corresponding convolution per spatial dim; default 1.");
    DMLC_DECLARE_FIELD(dilate).set_default(Shape()).describe(
        "Dilation per spatial dim; default 1.");
    DMLC_DECLARE_FIELD(pad).set_default(Shape()).describe(
        "Zero padding of the corresponding convolution per spatial dim; default 0. Ignored "
        "when target_shape is set.");
    DMLC_DECLARE_FIELD(adj).set_default(Shape()).describe(
        "Extra output rows/columns at the end per spatial dim (less than the stride); default "
        "0. Ignored when target_shape is set.");
    DMLC_DECLARE_FIELD(target_shape)
        .set_default(Shape())
        .describe(
            "Output spatial size: (w,), (h, w) or (d, h, w). When set (any non-zero entry), pad "
            "and adj are computed from it: total = stride*(in-1) + dilated kernel - target, "
            "pad = ceil(total/2), adj = total % 2.");
    DMLC_DECLARE_FIELD(num_filter).set_range(1, 100000).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe(
        "Number of groups: input and output channels split into this many independent "
        "deconvolutions.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).set_range(0, 8192).describe(
        "The most temporary memory (MiB) a GPU deconvolution may use for its cuDNN "
        "algorithms, within the bind's workspace_mb option. The CPU ignores it.");
    DMLC_DECLARE_FIELD(no_bias).set_default(true).describe("Whether to disable the bias.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", 0)
        .add_enum("limited_workspace", 1)
        .add_enum("fastest", 2)
        .set_default(dmlc::optional<int>())
        .describe("GPU algorithm choice, as Convolution's cudnn_tune.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Accepted for MXNet compatibility.");
    DeclareDataLayout(DMLC_DECLARE_FIELD(layout))
        .describe(
            "Data layout: channels-first NCW/NCHW/NCDHW (the default) or channels-last "
            "NWC/NHWC/NDHWC, whose weights are (C, kernel..., num_filter/num_group).");
  }
};

/*!
 * \brief The convolution whose data gradient is this deconvolution of `data` (see the file
 *  comment): n = N, c = num_filter, o = C, in = the deconvolution's output size, out = its input
 *  size, pad = the effective left padding. Validates the attributes as MXNet does (adj below
 *  the stride, a reachable target_shape, channels divisible by num_group).
 */
ConvGeometry MakeDeconvGeometry(const DeconvolutionParam& p, const Shape& data);

/*! \brief The blobs as channels-first views (ConvViews for a Deconvolution's layout). */
inline std::vector<TBlob> DeconvViews(const DeconvolutionParam& p, std::vector<TBlob> blobs) {
  for (auto& b : blobs)
    if (b.ndim() >= 3) b = ChannelsFirstView(b, IsChannelsLast(p.layout));
  return blobs;
}

/*!
 * \brief Channel of element i of an (N, C, S spatial) tensor stored in blocks of `blk`
 *  channels: blk = 1 is NCHW, blk = C is NHWC, 8 or 16 oneDNN's nChw8c/nChw16c.
 */
SYMNET_XINLINE int64_t BlockedChannel(int64_t i, int64_t c, int64_t s, int64_t blk) {
  return ((i / (blk * s)) % (c / blk)) * blk + i % blk;
}
/*! \brief Offset of (n, ch, spatial index sp) in the same storage. */
SYMNET_XINLINE int64_t BlockedOffset(int64_t n, int64_t ch, int64_t sp, int64_t c, int64_t s,
                                     int64_t blk) {
  return ((n * (c / blk) + ch / blk) * s + sp) * blk + ch % blk;
}

/*! \brief y[i] += b[channel of i]. */
struct DeconvBiasAddKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* y, const T* b, int64_t c, int64_t s, int64_t blk) {
    AssignReq<kAddTo>(&y[i], static_cast<AccType<T>>(b[BlockedChannel(i, c, s, blk)]));
  }
};

/*! \brief db[ch] (+)= the sum of dy over batch and space, one channel per index. */
template <int req>
struct DeconvBiasGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t ch, T* db, const T* dy, int64_t n, int64_t c, int64_t s,
                                 int64_t blk) {
    AccType<T> sum = 0;
    for (int64_t k = 0; k < n; ++k)
      for (int64_t sp = 0; sp < s; ++sp)
        sum += static_cast<AccType<T>>(dy[BlockedOffset(k, ch, sp, c, s, blk)]);
    AssignReq<req>(&db[ch], sum);
  }
};

/*! \brief Channels per storage block of a channels-first view (see BlockedChannel). */
inline int64_t StorageBlock(const TBlob& b) {
  if (b.channels_last()) return b.shape_[1];
  return b.blocked() ? b.channel_block() : 1;
}

/*! \brief y += bias per channel; y a channels-first view (N, C, spatial...). */
template <typename xpu>
void DeconvAddBias(const TBlob& y, const TBlob& bias) {
  const int64_t c = y.shape_[1], s = y.Size() / (y.shape_[0] * c);
  SYMNET_FLOAT_TYPE_SWITCH(y.dtype_, T, {
    Kernel<DeconvBiasAddKernel, xpu>::Launch(y.Size(), y.dptr<T>(), bias.dptr<T>(), c, s,
                                             StorageBlock(y));
  });
}

/*! \brief db from dy (a channels-first view) per `req`. */
template <typename xpu>
void DeconvBiasGrad(const TBlob& dy, const TBlob& db, OpReqType req) {
  if (req == kNullOp) return;
  const int64_t n = dy.shape_[0], c = dy.shape_[1];
  const int64_t s = n * c == 0 ? 0 : dy.Size() / (n * c);
  SYMNET_FLOAT_TYPE_SWITCH(dy.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<DeconvBiasGradKernel<Req>, xpu>::Launch(c, db.dptr<T>(), dy.dptr<T>(), n, c, s,
                                                     StorageBlock(dy));
    });
  });
}

/*!
 * \brief The kernels with the parameters given (UpSampling's bilinear mode runs them with the
 *  parameters it derives). Forward: inputs (x, w[, b]), output y. Backward: inputs (dy, x, w),
 *  outputs (dx, dw[, db]). The GPU pair is defined in CUDA builds only.
 */
void DeconvForwardCPU(const DeconvolutionParam& p, const NodeAttrs& attrs, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out);
void DeconvBackwardCPU(const DeconvolutionParam& p, const NodeAttrs& attrs, const OpContext& ctx,
                       const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                       const std::vector<TBlob>& out);
void DeconvForwardGPU(const DeconvolutionParam& p, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out);
void DeconvBackwardGPU(const DeconvolutionParam& p, const OpContext& ctx,
                       const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                       const std::vector<TBlob>& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_DECONVOLUTION_H_
