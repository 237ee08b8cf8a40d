/*! \brief GPU kernel of negative (elemwise_unary.cc's other ops are copies and fills with
 *  device-generic FCompute already). */
#include "elemwise_kernels.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(negative).set_attr<FCompute>("FCompute<gpu>",
                                                UnaryCompute<mathf::negation, gpu>);

}  // namespace ops
}  // namespace symnet
