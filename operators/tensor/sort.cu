/*! \brief GPU kernels of topk, sort and argsort (sort.h with xpu = gpu: ranks counted per element).
 */
#include "sort.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(topk).set_attr<FCompute>("FCompute<gpu>", TopKCompute<gpu>);
SYMNET_REGISTER_OP(_backward_topk).set_attr<FCompute>("FCompute<gpu>", TopKGradCompute<gpu>);
SYMNET_REGISTER_OP(sort).set_attr<FCompute>("FCompute<gpu>", SortCompute<gpu>);
SYMNET_REGISTER_OP(_backward_sort).set_attr<FCompute>("FCompute<gpu>", SortGradCompute<gpu>);
SYMNET_REGISTER_OP(argsort).set_attr<FCompute>("FCompute<gpu>", ArgSortCompute<gpu>);

}  // namespace ops
}  // namespace symnet
