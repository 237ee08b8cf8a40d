/*! \brief Convolution forward and backward through oneDNN, built once per call site. */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_CONVOLUTION_H_
#define SYMNET_OPERATORS_DNNL_DNNL_CONVOLUTION_H_

#include <memory>
#include <vector>

#include "../nn/convolution.h"
#include "dnnl_operand.h"

namespace symnet {
namespace dnnl_util {

/*! \brief What identifies a prepared convolution. */
struct ConvConfig {
  ops::ConvGeometry geo;
  DType dtype = DType::kFloat32;
  Layout src_layout = Layout::kDefault, dst_layout = Layout::kDefault;
  Layout weight_layout = Layout::kDefault;  // kChannelsLast: (O, kernel..., I) ("ohwi")
  bool bias = false;
  bool training = true;
  bool operator==(const ConvConfig& o) const {
    return geo == o.geo && dtype == o.dtype && src_layout == o.src_layout &&
           dst_layout == o.dst_layout && weight_layout == o.weight_layout && bias == o.bias &&
           training == o.training;
  }
};

/*!
 * \brief The config of convolution `geo` reading src and w and writing dst (their dtype and
 *  layouts): the one place Convolution, Deconvolution (swapped) and _FusedConvBN make it.
 */
ConvConfig MakeConvConfig(const ops::ConvGeometry& geo, const TBlob& src, const TBlob& w,
                          const TBlob& dst, bool bias, bool training);

/*!
 * \brief The activation layouts (src, dst) that oneDNN's fastest forward convolution of this
 *  geometry and dtype picks on the CPU at hand when left free (format_tag::any), cached per
 *  geometry; kDefault for a format that has no Layout. Thread-safe.
 */
std::pair<Layout, Layout> PreferredConvLayouts(const ops::ConvGeometry& geo, DType dtype);

/*! \brief y = conv(x, w) + b, any req; float32 or (with CPU support) bfloat16. */
class DnnlConvForward {
 public:
  explicit DnnlConvForward(const ConvConfig& cfg);
  /*! \param w_version w's write version (TBlob::version_): the weights reordered into the
   *   primitive's format are kept while it stays the same; null reorders on every call */
  void Run(const void* x, const void* w, const void* b, void* y, OpReqType req,
           const ContentVersion* w_version = nullptr);
  const ConvConfig& config() const { return cfg_; }
  const char* impl() const { return pd_.impl_info_str(); }

 private:
  ConvConfig cfg_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward prim_;
  DnnlOperand src_, weights_, dst_;
  dnnl::memory bias_;
};

/*!
 * \brief Inference convolution with a BatchNorm folded in, an optional residual sum and an
 *  optional ReLU: y = relu(conv(x, w * s) + (b - mean) * s + beta [+ y]), s = gamma /
 *  sqrt(var + eps) per output channel. The scaling rides on the weight reorder into the
 *  primitive's format (runtime output scales), which an unfused convolution pays on every call
 *  anyway, so folding costs nothing; the sum and the ReLU are post-ops.
 */
class DnnlFusedConvForward {
 public:
  /*! \param sum y holds the residual when Run is called and the result is added to it */
  DnnlFusedConvForward(const ConvConfig& cfg, bool relu, bool sum);
  /*!
   * \param b the convolution's own bias (cfg.bias; the conv dtype) or null
   * \param gamma, beta, mean, var BatchNorm's float32 parameters and moving statistics
   */
  void Run(const void* x, const void* w, const void* b, const float* gamma, const float* beta,
           const float* mean, const float* var, float eps, bool fix_gamma, void* y, OpReqType req,
           const ContentVersion* w_version = nullptr);
  const ConvConfig& config() const { return cfg_; }
  /*! \brief False when the sum post-op cannot write the caller's format (run the chain unfused). */
  bool usable() const { return usable_; }

 private:
  ConvConfig cfg_;
  bool sum_;
  bool usable_ = true;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward prim_;
  dnnl::reorder scale_weights_;
  dnnl::memory user_weights_, weights_, scales_, bias_;
  DnnlOperand src_, dst_;
  StoragePtr weights_buf_;
  std::vector<float> scale_, shift_, conv_bias_;
  // what weights_ holds: w at write version w_stamp_ (0: nothing trustworthy) scaled by w_scale_.
  // The scale is compared by value, which covers every way gamma, var, eps or fix_gamma change.
  const void* w_ptr_ = nullptr;
  uint64_t w_stamp_ = 0;
  std::vector<float> w_scale_;
};

/*!
 * \brief dx, dw, db from dy, x, w; the bias gradient in the weight dtype. Each half (data,
 *  weights) is prepared on its first request, so a caller that wants only dx (Deconvolution's
 *  forward) never makes the weights primitive, and x, dw, db may then be null.
 */
class DnnlConvBackward {
 public:
  explicit DnnlConvBackward(const ConvConfig& cfg);
  /*! \param w_version as DnnlConvForward::Run's */
  void Run(const void* dy, const void* x, const void* w, void* dx, void* dw, void* db,
           const std::vector<OpReqType>& req, const ContentVersion* w_version = nullptr);
  const ConvConfig& config() const { return cfg_; }

 private:
  void InitData();
  void InitWeights();

  ConvConfig cfg_;
  bool data_ready_ = false, weights_ready_ = false;
  dnnl::convolution_backward_weights::primitive_desc weights_pd_;
  dnnl::convolution_backward_data data_prim_;
  dnnl::convolution_backward_weights weights_prim_;
  DnnlOperand d_dst_data_, weights_, d_src_;              // backward-data operands
  DnnlOperand d_dst_weights_, src_, d_weights_, d_bias_;  // backward-weights operands
};

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_CONVOLUTION_H_
