/*! \brief GPU kernel of the regression outputs' gradient (regression_output.h). */
#include "regression_output.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_backward_LinearRegressionOutput)
    .set_attr<FCompute>("FCompute<gpu>", RegressionGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
