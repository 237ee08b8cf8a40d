/*! \brief GPU kernels of Dropout (the same counter-based mask as the CPU) and LinearRegressionOutput. */
#include "src/device/kernel_launch.cuh"
#include "dropout.h"
#include "regression_output.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(Dropout).set_attr<FCompute>("FCompute<gpu>", DropoutCompute<gpu>);
SYMNET_REGISTER_OP(_backward_LinearRegressionOutput)
    .set_attr<FCompute>("FCompute<gpu>", RegressionGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
