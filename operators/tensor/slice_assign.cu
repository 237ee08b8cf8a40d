/*! \brief GPU kernels of _slice_assign and _slice_assign_scalar (slice_assign.h, xpu = gpu). */
#include "slice_assign.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_slice_assign).set_attr<FCompute>("FCompute<gpu>", SliceAssignForward<gpu>);
SYMNET_REGISTER_OP(_slice_assign_scalar)
    .set_attr<FCompute>("FCompute<gpu>", SliceAssignScalarForward<gpu>);

}  // namespace ops
}  // namespace symnet
