/*! \brief GPU kernels of SequenceMask and SequenceLast: sequence_ops.h with xpu = gpu. */
#include "sequence_ops.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(SequenceMask)
    .set_attr<FCompute>("FCompute<gpu>", SequenceMaskCompute<gpu, false>);
SYMNET_REGISTER_OP(_backward_SequenceMask)
    .set_attr<FCompute>("FCompute<gpu>", SequenceMaskCompute<gpu, true>);
SYMNET_REGISTER_OP(SequenceLast).set_attr<FCompute>("FCompute<gpu>", SequenceLastForward<gpu>);
SYMNET_REGISTER_OP(_backward_SequenceLast)
    .set_attr<FCompute>("FCompute<gpu>", SequenceLastBackward<gpu>);

}  // namespace ops
}  // namespace symnet
