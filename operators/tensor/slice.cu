/*! \brief GPU kernels of slice and slice_axis: slice.h's box copy with xpu = gpu (one thread per
 *  element of the box). */
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

}  // namespace ops
}  // namespace symnet
