/*! \brief _contrib_BilinearResize2D on a GPU: bilinear_resize.h's gathers with xpu = gpu. */
#include "bilinear_resize.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_contrib_BilinearResize2D)
    .set_attr<FCompute>("FCompute<gpu>", BilinearResizeForward<gpu>);
SYMNET_REGISTER_OP(_backward_contrib_BilinearResize2D)
    .set_attr<FCompute>("FCompute<gpu>", BilinearResizeBackward<gpu>);

}  // namespace ops
}  // namespace symnet
