/*!
 * \brief What Convolution's GPU kernels share with Deconvolution's (CUDA builds only): the call
 *  site's cuDNN convolution, kept in its op state, and the operand ordering around it.
 */
#ifndef SYMNET_OPERATORS_NN_CONVOLUTION_CUDA_H_
#define SYMNET_OPERATORS_NN_CONVOLUTION_CUDA_H_

#include "../cudnn/cudnn_convolution.h"
#include "../tensor/channel_copy.h"
#include "convolution.h"
#include "one_order.h"

namespace symnet {
namespace ops {

/*!
 * \brief The call site's cuDNN convolution of geometry `g`, in NHWC when `want_last` and cuDNN
 *  has algorithms for it, else in NCHW (the operands are then copied: see OneOrder); *last says
 *  which. Made again when the geometry, dtype or device changes. `backward` chooses the
 *  backward algorithms at once.
 */
cudnn::Convolution& GetCudnnConv(const OpContext& ctx, size_t workspace_limit,
                                 const ConvGeometry& g, DType t, bool want_last, bool backward,
                                 bool* last);

/*! \brief OneOrder's device side: LayoutScratch and CopyChannelsGPU. */
struct GpuOrderOps {
  static void* Scratch(int dev, size_t bytes);
  static void Copy(const void* src, bool src_last, void* dst, bool dst_last, DType t,
                   const ChannelDims3& d, OpReqType req);
};
using OneOrder = OneOrderT<GpuOrderOps>;

/*! \brief cuDNN runs NHWC when `b` (the output, or the incoming gradient) is stored so, except
 *  in float64, which its NHWC kernels do not cover. */
bool RunChannelsLast(const TBlob& b);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_CONVOLUTION_CUDA_H_
