/*!
 * \brief Convolution through cuDNN (all cuDNN calls live in operators/cudnn/): descriptors for
 *  one geometry and dtype, algorithms chosen once by cuDNN's heuristics within a workspace limit
 *  (SYMNET_CUDNN_WORKSPACE_MB, default 1024), float32 accumulation, tensor cores for 16-bit data
 *  and plain FMA (no TF32) for float32 so that GPU float32 matches the CPU. Data may be NCHW or
 *  NHWC (cuDNN's tensor-core kernels prefer NHWC for 16-bit data), filters KCRS or KRSC.
 */
#ifndef SYMNET_OPERATORS_CUDNN_CUDNN_CONVOLUTION_H_
#define SYMNET_OPERATORS_CUDNN_CUDNN_CONVOLUTION_H_

#include <memory>
#include <vector>

#include "../nn/convolution.h"

namespace symnet {
namespace ops {
namespace cudnn {

/*!
 * \brief Element strides of a packed tensor of `dims` (N, C, spatial...), stored in that order or
 *  channels-last (N, spatial..., C): what cuDNN's tensor descriptors get.
 */
std::vector<int> PackedStrides(const std::vector<int>& dims, bool channels_last);

/*! \brief Which operands are stored channels-last (NHWC data, KRSC filters). */
struct ConvLayouts {
  bool x = false, w = false, y = false;
  bool operator==(const ConvLayouts& o) const { return x == o.x && w == o.w && y == o.y; }
};

class Convolution {
 public:
  /*! \param workspace_limit bytes its algorithms may use (ConvWorkspaceLimit) */
  Convolution(int dev, const ConvGeometry& g, DType dtype, ConvLayouts layouts,
              size_t workspace_limit);
  ~Convolution();
  Convolution(const Convolution&) = delete;
  Convolution& operator=(const Convolution&) = delete;

  /*! \brief y (+)= conv(x, w) + b (b may be null). */
  void Forward(const void* x, const void* w, const void* b, void* y, OpReqType req);
  /*! \brief dx, dw, db (db may be null) from dy, x and w, each written per its request. */
  void Backward(const void* dy, const void* x, const void* w, void* dx, void* dw, void* db,
                const std::vector<OpReqType>& req);

  /*! \brief x += b, with b one value per input channel (g.c): Deconvolution's bias, which
   *  lives on the input side of the convolution it runs backward. */
  void AddInputBias(const void* b, void* x);
  /*! \brief db (+)= dx summed over all but the input channel: that bias's gradient. */
  void InputBiasGrad(const void* dx, void* db, OpReqType req);

  /*! \brief Chooses the backward algorithms now (else on the first Backward); throws like the
   *  constructor when cuDNN has none. */
  void PrepareBackward();

  bool Matches(int dev, const ConvGeometry& g, DType dtype, ConvLayouts layouts) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CUDNN_CUDNN_CONVOLUTION_H_
