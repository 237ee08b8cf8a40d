/*! \brief GPU kernels of diag: slice.h's box copy with xpu = gpu (diag.h). */
#include "diag.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(diag).set_attr<FCompute>("FCompute<gpu>", DiagForward<gpu>);
SYMNET_REGISTER_OP(_backward_diag).set_attr<FCompute>("FCompute<gpu>", DiagBackward<gpu>);

}  // namespace ops
}  // namespace symnet
