/*! \brief GPU kernels of where: where.h's kernels with xpu = gpu. */
#include "src/device/kernel_launch.cuh"
#include "where.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(where).set_attr<FCompute>("FCompute<gpu>", WhereForward<gpu>);
SYMNET_REGISTER_OP(_backward_where).set_attr<FCompute>("FCompute<gpu>", WhereBackward<gpu>);

}  // namespace ops
}  // namespace symnet
