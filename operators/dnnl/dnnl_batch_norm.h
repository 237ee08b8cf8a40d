/*! \brief Batch normalization through oneDNN (channel axis 1, float32/bfloat16 data). */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_BATCH_NORM_H_
#define SYMNET_OPERATORS_DNNL_DNNL_BATCH_NORM_H_

#include <vector>

#include "dnnl_common.h"
#include "symnet/tensor.h"

namespace symnet {
namespace dnnl_util {

struct BatchNormConfig {
  Shape shape;  // logical (N, C, ...)
  DType dtype = DType::kFloat32;
  Layout layout = Layout::kDefault;
  float eps = 1e-3f;
  bool use_scale = true;      // false: gamma is fixed at 1
  bool global_stats = false;  // normalize with given mean/variance instead of batch statistics
  // ReLU fused into the primitive (normalization_flags::fuse_norm_relu): the forward writes the
  // ReLU's mask into a workspace, the backward masks diff_dst with it
  bool fuse_relu = false;
  bool operator==(const BatchNormConfig& o) const {
    return shape == o.shape && dtype == o.dtype && layout == o.layout && eps == o.eps &&
           use_scale == o.use_scale && global_stats == o.global_stats && fuse_relu == o.fuse_relu;
  }
};

/*! \brief Whether oneDNN handles this case (else the caller uses plain loops). */
bool BatchNormSupported(const Shape& shape, DType dtype, int axis);

class DnnlBatchNormForward {
 public:
  explicit DnnlBatchNormForward(const BatchNormConfig& cfg);
  /*!
   * \brief mean/var are read (global_stats) or written (batch statistics); float32. With
   *  fuse_relu, `ws` receives the ReLU mask (workspace_bytes() of it).
   */
  void Run(const void* x, const float* gamma, const float* beta, float* mean, float* var, void* y,
           void* ws = nullptr);
  const BatchNormConfig& config() const { return cfg_; }
  /*! \brief Bytes of the ReLU mask (0 without fuse_relu): 1 bit per element for the jit
   *  kernels, 1 byte for the plain-layout ones. */
  size_t workspace_bytes() const;

 private:
  BatchNormConfig cfg_;
  dnnl::batch_normalization_forward::primitive_desc pd_;
  dnnl::batch_normalization_forward prim_;
  std::vector<float> scale_shift_;  // [gamma or ones; beta]
};

class DnnlBatchNormBackward {
 public:
  explicit DnnlBatchNormBackward(const BatchNormConfig& cfg);
  /*!
   * \brief dx (written) from dy, x and the statistics; dgamma and dbeta (float32) are written,
   *  added or skipped according to their requests.
   */
  void Run(const void* dy, const void* x, const float* gamma, const float* mean, const float* var,
           void* dx, float* dgamma, float* dbeta, OpReqType req_gamma, OpReqType req_beta,
           const void* ws = nullptr);
  const BatchNormConfig& config() const { return cfg_; }
  /*! \brief Bytes of the ReLU mask the backward reads (0 without fuse_relu). */
  size_t workspace_bytes() const;

 private:
  BatchNormConfig cfg_;
  dnnl::batch_normalization_backward::primitive_desc pd_;
  dnnl::batch_normalization_backward prim_;
  std::vector<float> scale_shift_, diff_scale_shift_;
};

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_BATCH_NORM_H_
