/*! \brief GPU kernel of SVMOutput's gradient (svm_output.h with xpu = gpu). */
#include "src/device/kernel_launch.cuh"
#include "svm_output.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_backward_SVMOutput)
    .set_attr<FCompute>("FCompute<gpu>", SVMOutputGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
