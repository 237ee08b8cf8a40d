/*! \brief GPU kernels of Embedding: embedding.h (take's kernels) with xpu = gpu. */
#include "embedding.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(Embedding).set_attr<FCompute>("FCompute<gpu>", EmbeddingForward<gpu>);
SYMNET_REGISTER_OP(_backward_Embedding).set_attr<FCompute>("FCompute<gpu>", EmbeddingBackward<gpu>);

}  // namespace ops
}  // namespace symnet
