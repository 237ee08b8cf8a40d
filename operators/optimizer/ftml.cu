/*! \brief GPU kernel of ftml_update. */
#include "ftml.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(ftml_update).set_attr<FCompute>("FCompute<gpu>", FtmlCompute<gpu>);

}  // namespace ops
}  // namespace symnet
