/*! \brief GPU kernels of shape_array and size_array (shape_array.h with xpu = gpu). */
#include "shape_array.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(shape_array).set_attr<FCompute>("FCompute<gpu>", ShapeArrayForward<gpu, false>);
SYMNET_REGISTER_OP(size_array).set_attr<FCompute>("FCompute<gpu>", ShapeArrayForward<gpu, true>);

}  // namespace ops
}  // namespace symnet
