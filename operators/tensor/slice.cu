/*! \brief GPU kernels of slice and slice_axis: slice.h's box copy with xpu = gpu (one thread per
 *  element of the box), and the gradient's zero fill on the kernels' stream. */
#include "slice.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

template <>
void ZeroBlob<gpu>(const TBlob& b) {
  // on the stream the box copy that follows is launched on, so it lands after the zeros
  if (b.Bytes() > 0)
    SYMNET_CUDA_CALL(cudaMemsetAsync(b.dptr_, 0, b.Bytes(), cuda::CurrentStream()));
}

SYMNET_REGISTER_OP(slice).set_attr<FCompute>("FCompute<gpu>", BoxForward<gpu, SliceBoxOf>);
SYMNET_REGISTER_OP(_backward_slice)
    .set_attr<FCompute>("FCompute<gpu>", BoxBackward<gpu, SliceBoxOf>);
SYMNET_REGISTER_OP(slice_axis).set_attr<FCompute>("FCompute<gpu>", BoxForward<gpu, SliceAxisBoxOf>);
SYMNET_REGISTER_OP(_backward_slice_axis)
    .set_attr<FCompute>("FCompute<gpu>", BoxBackward<gpu, SliceAxisBoxOf>);

}  // namespace ops
}  // namespace symnet
