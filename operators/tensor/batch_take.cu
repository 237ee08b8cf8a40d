/*! \brief GPU kernel of batch_take. */
#include "batch_take.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(batch_take).set_attr<FCompute>("FCompute<gpu>", BatchTakeForward<gpu>);

}  // namespace ops
}  // namespace symnet
