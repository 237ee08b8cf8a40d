/*! \brief PackedStrides (cudnn_convolution.h): plain C++, so every build compiles and tests it. */
#include "cudnn_convolution.h"

namespace symnet {
namespace ops {
namespace cudnn {

std::vector<int> PackedStrides(const std::vector<int>& dims, bool channels_last) {
  std::vector<int> strides(dims.size());
  int s = 1;
  if (channels_last) {  // C varies fastest, then the spatial dims from the last, then N
    strides[1] = 1;
    s = dims[1];
    for (int i = static_cast<int>(dims.size()) - 1; i >= 2; --i) {
      strides[i] = s;
      s *= dims[i];
    }
    strides[0] = s;
  } else {
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      strides[i] = s;
      s *= dims[i];
    }
  }
  return strides;
}

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet
