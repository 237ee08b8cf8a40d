/*! \brief GPU kernel of Dropout: the same counter-based mask as the CPU, so a seed draws the same
 *  mask on either device. */
#include "dropout.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(Dropout).set_attr<FCompute>("FCompute<gpu>", DropoutCompute<gpu>);

}  // namespace ops
}  // namespace symnet
