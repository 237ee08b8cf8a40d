/*! \brief GPU kernel of _shuffle: the CPU's permutation, found by counting instead of sorting. */
#include "shuffle.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_shuffle).set_attr<FCompute>("FCompute<gpu>", ShuffleCompute<gpu>);

}  // namespace ops
}  // namespace symnet
