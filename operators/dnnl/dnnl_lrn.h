/*!
 * \brief Local response normalization across channels through oneDNN (4-D NCHW data). oneDNN's
 *  optimized LRN kernels cover only some cases (on AVX2 the backward wants blocked nChw8c data, a
 *  window of 5 and beta 0.75, as AlexNet has); each wrapper says whether it found one
 *  (usable()), and the caller runs its plain loop otherwise rather than oneDNN's reference kernel.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_LRN_H_
#define SYMNET_OPERATORS_DNNL_DNNL_LRN_H_

#include <vector>

#include "dnnl_common.h"
#include "dnnl_operand.h"
#include "symnet/tensor.h"

namespace symnet {
namespace dnnl_util {

struct LRNConfig {
  Shape shape;  // (N, C, H, W)
  DType dtype = DType::kFloat32;
  int64_t local_size = 5;
  float alpha = 1e-4f, beta = 0.75f, k = 2.0f;
  bool operator==(const LRNConfig& o) const {
    return shape == o.shape && dtype == o.dtype && local_size == o.local_size && alpha == o.alpha &&
           beta == o.beta && k == o.k;
  }
};

/*!
 * \brief Whether oneDNN may compute MXNet's LRN here: plain 4-D float32 (or natively supported
 *  bfloat16) data with an odd window (oneDNN centres an even window differently from MXNet).
 */
bool LRNSupported(const Shape& shape, DType dtype, Layout layout, int64_t nsize);

class DnnlLRNForward {
 public:
  /*! \brief Data in `tag` (nchw for the op; a blocked tag for the backward's own forward). */
  explicit DnnlLRNForward(const LRNConfig& cfg,
                          dnnl::memory::format_tag tag = dnnl::memory::format_tag::nchw);
  /*! \brief False when oneDNN has only its reference kernel for this case. */
  bool usable() const { return usable_; }
  /*! \brief y (written) from x, both in the tag's format; `workspace` (workspace_bytes()) too. */
  void Run(const void* x, void* y, void* workspace);
  size_t workspace_bytes() const { return pd_.workspace_desc().get_size(); }
  const dnnl::lrn_forward::primitive_desc& pd() const { return pd_; }
  const LRNConfig& config() const { return cfg_; }

 private:
  LRNConfig cfg_;
  dnnl::memory::desc data_;
  dnnl::lrn_forward::primitive_desc pd_;
  bool usable_;
  dnnl::lrn_forward prim_;
};

class DnnlLRNBackward {
 public:
  /*! \brief Tries plain, then channel-blocked data, for a format with an optimized kernel. */
  explicit DnnlLRNBackward(const LRNConfig& cfg);
  bool usable() const { return fwd_ != nullptr; }
  /*!
   * \brief dx (per `req`) from dy and x (NCHW). oneDNN's backward reads the forward's workspace,
   *  which the graph does not carry to the backward node, so the forward runs again here.
   */
  void Run(const void* dy, const void* x, void* dx, OpReqType req);
  const LRNConfig& config() const { return cfg_; }

 private:
  LRNConfig cfg_;
  std::unique_ptr<DnnlLRNForward> fwd_;
  dnnl::lrn_backward::primitive_desc pd_;
  dnnl::lrn_backward prim_;
  DnnlOperand x_, dy_, dx_;
  std::vector<char> y_, workspace_;
};

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_LRN_H_
