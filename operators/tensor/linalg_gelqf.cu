/*! \brief GPU kernels of _linalg_gelqf and its gradient: linalg_gelqf.h's functors, one thread
 *  per matrix (the CPU's arithmetic, in double). */
#include "linalg_gelqf.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_linalg_gelqf).set_attr<FCompute>("FCompute<gpu>", GelqfForward<gpu>);
SYMNET_REGISTER_OP(_backward_linalg_gelqf).set_attr<FCompute>("FCompute<gpu>", GelqfBackward<gpu>);

}  // namespace ops
}  // namespace symnet
