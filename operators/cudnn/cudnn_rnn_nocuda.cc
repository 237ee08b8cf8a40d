/*! \brief The cuDNN RNN path's sizes in a build without CUDA: it never runs, so it needs none. */
#include "cudnn_rnn.h"

namespace symnet {
namespace ops {
namespace cudnn {

size_t RnnReserveBytes(int, const RnnGeom&, DType) { return 0; }
int64_t RnnReserveElems(const RnnGeom&) { return 0; }

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet
