/*! \brief Crop on a GPU: slice.h's box copies (one thread per element) with xpu = gpu. */
#include "crop.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(Crop).set_attr<FCompute>("FCompute<gpu>", BoxForward<gpu, CropBoxOf>);
SYMNET_REGISTER_OP(_backward_Crop).set_attr<FCompute>("FCompute<gpu>", BoxBackward<gpu, CropBoxOf>);

}  // namespace ops
}  // namespace symnet
