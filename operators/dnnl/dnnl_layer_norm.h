/*!
 * \brief Layer normalization through oneDNN, over the last axis of float32 data seen as
 *  (rows, C). oneDNN keeps the variance where MXNet's LayerNorm outputs sqrt(var + eps): the
 *  wrappers convert between the two so that the op's std output stays MXNet's.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_LAYER_NORM_H_
#define SYMNET_OPERATORS_DNNL_DNNL_LAYER_NORM_H_

#include <vector>

#include "dnnl_common.h"
#include "symnet/tensor.h"

namespace symnet {
namespace dnnl_util {

struct LayerNormConfig {
  int64_t rows = 0, c = 0;  // the data as (rows, C), normalized over C
  DType dtype = DType::kFloat32;
  float eps = 1e-5f;
  bool operator==(const LayerNormConfig& o) const {
    return rows == o.rows && c == o.c && dtype == o.dtype && eps == o.eps;
  }
};

/*!
 * \brief Whether oneDNN computes this LayerNorm: float32 data in the plain layout, normalized
 *  over its last axis, not empty. (16-bit data runs staged in float32: gamma and beta would be
 *  16-bit too, and oneDNN 2.6 takes them only in float32.)
 */
bool LayerNormSupported(const Shape& shape, DType dtype, Layout layout, int axis);

class DnnlLayerNormForward {
 public:
  explicit DnnlLayerNormForward(const LayerNormConfig& cfg);
  /*! \brief y (written), mean and std (rows each, written) from x, gamma and beta. */
  void Run(const void* x, const float* gamma, const float* beta, void* y, float* mean, float* std);
  const LayerNormConfig& config() const { return cfg_; }

 private:
  LayerNormConfig cfg_;
  dnnl::layer_normalization_forward::primitive_desc pd_;
  dnnl::layer_normalization_forward prim_;
  std::vector<float> scale_shift_;  // [gamma; beta], the (2, C) tensor oneDNN 2.6 reads
};

class DnnlLayerNormBackward {
 public:
  explicit DnnlLayerNormBackward(const LayerNormConfig& cfg);
  /*!
   * \brief dx (written) from dy, x, gamma and the forward's mean and std; dgamma and dbeta are
   *  written, added or skipped per their requests.
   */
  void Run(const void* dy, const void* x, const float* gamma, const float* mean, const float* std,
           void* dx, float* dgamma, float* dbeta, OpReqType req_gamma, OpReqType req_beta);
  const LayerNormConfig& config() const { return cfg_; }

 private:
  LayerNormConfig cfg_;
  dnnl::layer_normalization_backward::primitive_desc pd_;
  dnnl::layer_normalization_backward prim_;
  std::vector<float> scale_shift_, diff_scale_shift_, var_;
};

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_LAYER_NORM_H_
