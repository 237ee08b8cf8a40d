/*! \brief GPU kernels of softmax, log_softmax and softmin (the row kernels of softmax.h with xpu =
 * gpu). */
#include "softmax.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(softmax).set_attr<FCompute>("FCompute<gpu>", SoftmaxCompute<false, gpu>);
SYMNET_REGISTER_OP(_backward_softmax)
    .set_attr<FCompute>("FCompute<gpu>", SoftmaxGradCompute<false, gpu>);
SYMNET_REGISTER_OP(log_softmax).set_attr<FCompute>("FCompute<gpu>", SoftmaxCompute<true, gpu>);
SYMNET_REGISTER_OP(_backward_log_softmax)
    .set_attr<FCompute>("FCompute<gpu>", SoftmaxGradCompute<true, gpu>);
SYMNET_REGISTER_OP(softmin).set_attr<FCompute>("FCompute<gpu>", SoftmaxCompute<false, gpu, true>);
SYMNET_REGISTER_OP(_backward_softmin)
    .set_attr<FCompute>("FCompute<gpu>", SoftmaxGradCompute<false, gpu, true>);

}  // namespace ops
}  // namespace symnet
