/*!
 * \brief UpSampling (MXNet's): nearest-neighbour upsampling of one or several NCHW inputs
 *  (concatenated along channels, or summed), or bilinear upsampling, which is a depthwise
 *  Deconvolution (deconvolution.h) with a learnable (C, 1, k, k) weight. The nearest kernels
 *  are templated on the device: upsampling.cc runs them with xpu = cpu, upsampling.cu with gpu.
 */
#ifndef SYMNET_OPERATORS_NN_UPSAMPLING_H_
#define SYMNET_OPERATORS_NN_UPSAMPLING_H_

#include <vector>

#include "../operator_common.h"
#include "deconvolution.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum UpSamplingType { kUpNearest = 0, kUpBilinear = 1 };
enum UpSamplingMultiInput { kUpConcat = 0, kUpSum = 1 };

struct UpSamplingParam : public dmlc::Parameter<UpSamplingParam> {
  int scale;
  int num_filter;
  int sample_type;
  int multi_input_mode;
  int num_args;
  uint64_t workspace;
  DMLC_DECLARE_PARAMETER(UpSamplingParam) {
    DMLC_DECLARE_FIELD(scale).set_lower_bound(1).describe("Up sampling scale.");
    DMLC_DECLARE_FIELD(num_filter)
        .set_default(0)
        .describe(
            "Input channels, for bilinear upsampling only (its deconvolution has one group per "
            "channel); must equal the data's channels.");
    DMLC_DECLARE_FIELD(sample_type)
        .add_enum("nearest", kUpNearest)
        .add_enum("bilinear", kUpBilinear)
        .describe("Upsampling method.");
    DMLC_DECLARE_FIELD(multi_input_mode)
        .add_enum("concat", kUpConcat)
        .add_enum("sum", kUpSum)
        .set_default(kUpConcat)
        .describe(
            "How several inputs combine (nearest only): concat joins the upsampled inputs along "
            "channels, sum adds them (equal channels).");
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe(
        "Number of inputs: 1 to N for nearest, every one upsampled to (scale*h_0, scale*w_0); "
        "2 (data and weight) for bilinear.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).set_range(0, 8192).describe(
        "Temporary workspace (MiB) of the bilinear deconvolution on a GPU.");
  }
};

/*! \brief out[n, off + c, h, w] (+)= x[n, c, h / sh, w / sw], over one input's slice. */
template <int req>
struct UpNearestKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t j, T* out, const T* x, int64_t c, int64_t ih, int64_t iw,
                                 int64_t c_out, int64_t off, int64_t oh, int64_t ow, int64_t sh,
                                 int64_t sw) {
    const int64_t w = j % ow, h = (j / ow) % oh, ch = (j / (ow * oh)) % c, n = j / (ow * oh * c);
    AssignReq<req>(&out[((n * c_out + off + ch) * oh + h) * ow + w],
                   static_cast<AccType<T>>(x[((n * c + ch) * ih + h / sh) * iw + w / sw]));
  }
};

/*! \brief dx[n, c, h, w] (+)= the sum of dy over its sh x sw block of channel off + c. */
template <int req>
struct UpNearestGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t j, T* dx, const T* dy, int64_t c, int64_t ih, int64_t iw,
                                 int64_t c_out, int64_t off, int64_t oh, int64_t ow, int64_t sh,
                                 int64_t sw) {
    const int64_t w = j % iw, h = (j / iw) % ih, ch = (j / (iw * ih)) % c, n = j / (iw * ih * c);
    const T* row = dy + ((n * c_out + off + ch) * oh + h * sh) * ow + w * sw;
    AccType<T> sum = 0;
    for (int64_t a = 0; a < sh; ++a)
      for (int64_t b = 0; b < sw; ++b) sum += static_cast<AccType<T>>(row[a * ow + b]);
    AssignReq<req>(&dx[j], sum);
  }
};

/*! \brief The Deconvolution that bilinear upsampling of `channels` channels runs (MXNet's):
 *  kernel 2s - s%2, stride s, pad ceil((s-1)/2), one group per channel, no bias. */
DeconvolutionParam BilinearDeconvParam(const UpSamplingParam& p, int64_t channels);

/*! \brief Nearest upsampling: inputs x_0..x_{k-1}, output y. */
template <typename xpu>
void UpNearestForward(const UpSamplingParam& p, const std::vector<TBlob>& in, OpReqType req,
                      const TBlob& out) {
  if (req == kNullOp) return;
  const int64_t c_out = out.shape_[1], oh = out.shape_[2], ow = out.shape_[3];
  int64_t off = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const TBlob& x = in[i];
    const int64_t c = x.shape_[1], ih = x.shape_[2], iw = x.shape_[3];
    // in sum mode the first input writes per req and the others add to it
    const OpReqType r = (p.multi_input_mode == kUpSum && i > 0) ? kAddTo : req;
    SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
      SYMNET_REQ_SWITCH(r, Req, {
        Kernel<UpNearestKernel<Req>, xpu>::Launch(x.shape_[0] * c * oh * ow, out.dptr<T>(),
                                                  x.dptr<T>(), c, ih, iw, c_out, off, oh, ow,
                                                  oh / ih, ow / iw);
      });
    });
    if (p.multi_input_mode == kUpConcat) off += c;
  }
}

/*! \brief Its gradient: input dy, outputs dx_0..dx_{k-1}. */
template <typename xpu>
void UpNearestBackward(const UpSamplingParam& p, const TBlob& dy, const std::vector<OpReqType>& req,
                       const std::vector<TBlob>& out) {
  const int64_t c_out = dy.shape_[1], oh = dy.shape_[2], ow = dy.shape_[3];
  int64_t off = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const TBlob& dx = out[i];
    const int64_t c = dx.shape_[1], ih = dx.shape_[2], iw = dx.shape_[3];
    SYMNET_FLOAT_TYPE_SWITCH(dx.dtype_, T, {
      SYMNET_REQ_SWITCH(req[i], Req, {
        Kernel<UpNearestGradKernel<Req>, xpu>::Launch(dx.Size(), dx.dptr<T>(), dy.dptr<T>(), c, ih,
                                                      iw, c_out, off, oh, ow, oh / ih, ow / iw);
      });
    });
    if (p.multi_input_mode == kUpConcat) off += c;
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_UPSAMPLING_H_
