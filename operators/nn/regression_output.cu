/*! \brief GPU kernels of the regression output heads (regression_output.h with xpu = gpu). */
#include "regression_output.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

// the identity forwards (CopyCompute) serve any device; the sigmoid needs its GPU instance
SYMNET_REGISTER_OP(LinearRegressionOutput).set_attr<FCompute>("FCompute<gpu>", CopyCompute);
SYMNET_REGISTER_OP(MAERegressionOutput).set_attr<FCompute>("FCompute<gpu>", CopyCompute);
SYMNET_REGISTER_OP(LogisticRegressionOutput)
    .set_attr<FCompute>("FCompute<gpu>", UnaryCompute<mathf::sigmoid, gpu>);

#define SYMNET_GPU_REGRESSION(NAME, FWD, GRAD, DOC) \
  SYMNET_REGISTER_OP(_backward_##NAME)              \
      .set_attr<FCompute>("FCompute<gpu>", RegressionGradCompute<GRAD, gpu>);
SYMNET_REGRESSION_OUTPUTS(SYMNET_GPU_REGRESSION)

}  // namespace ops
}  // namespace symnet
