/*! \brief GPU kernels of transpose (transpose.h's strided index map with xpu = gpu). */
#include "src/device/kernel_launch.cuh"
#include "transpose.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(transpose).set_attr<FCompute>("FCompute<gpu>", TransposeCompute<gpu>);
SYMNET_REGISTER_OP(_backward_transpose)
    .set_attr<FCompute>("FCompute<gpu>", TransposeGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
