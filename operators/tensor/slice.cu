/*! \brief GPU kernels of slice, slice_axis and slice_like: slice.h's box copy with xpu = gpu (one
 *  thread per element of the box). */
#include "slice.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(slice).set_attr<FCompute>("FCompute<gpu>", BoxForward<gpu, SliceBoxOf>);
SYMNET_REGISTER_OP(_backward_slice)
    .set_attr<FCompute>("FCompute<gpu>", BoxBackward<gpu, SliceBoxOf>);
SYMNET_REGISTER_OP(slice_axis).set_attr<FCompute>("FCompute<gpu>", BoxForward<gpu, SliceAxisBoxOf>);
SYMNET_REGISTER_OP(_backward_slice_axis)
    .set_attr<FCompute>("FCompute<gpu>", BoxBackward<gpu, SliceAxisBoxOf>);
SYMNET_REGISTER_OP(slice_like).set_attr<FCompute>("FCompute<gpu>", BoxForward<gpu, CornerBoxOf>);
SYMNET_REGISTER_OP(_backward_slice_like)
    .set_attr<FCompute>("FCompute<gpu>", BoxBackward<gpu, CornerBoxOf>);

// the one instantiation of the GPU box copy (slice.h declares it extern for the other .cu files)
template void BoxCopy<gpu>(const TBlob& whole, const SliceBox& b, const TBlob& part, bool to_whole,
                           OpReqType req);

}  // namespace ops
}  // namespace symnet
