/*! \brief GPU kernel of ftrl_update. */
#include "ftrl.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(ftrl_update).set_attr<FCompute>("FCompute<gpu>", FtrlCompute<gpu>);

}  // namespace ops
}  // namespace symnet
