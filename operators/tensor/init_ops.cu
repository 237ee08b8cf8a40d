/*! \brief GPU kernels of _zeros, _ones, _full and _arange: init_ops.h's kernels with xpu = gpu. */
#include "init_ops.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_zeros).set_attr<FCompute>("FCompute<gpu>", FillForward<gpu, Zero>);
SYMNET_REGISTER_OP(_ones).set_attr<FCompute>("FCompute<gpu>", FillForward<gpu, One>);
SYMNET_REGISTER_OP(_full).set_attr<FCompute>("FCompute<gpu>", FillForward<gpu, FullValue>);
SYMNET_REGISTER_OP(_arange).set_attr<FCompute>("FCompute<gpu>", ArangeForward<gpu>);

}  // namespace ops
}  // namespace symnet
