/*!
 * \brief shape_array and size_array (MXNet 1.x): the input's shape, or its number of elements,
 *  as a 1-D int64 array. The values are known on the host; a kernel writes them from its
 *  arguments (no host-to-device copy, so a GPU step holding these ops can still be captured as a
 *  CUDA graph). shape_array.cc registers the CPU kernels, shape_array.cu the GPU ones.
 */
#ifndef SYMNET_OPERATORS_TENSOR_SHAPE_ARRAY_H_
#define SYMNET_OPERATORS_TENSOR_SHAPE_ARRAY_H_

#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*! \brief Up to this many values travel in the kernel's arguments. */
constexpr int kMaxShapeArrayDims = 32;

struct DimValues {
  int64_t v[kMaxShapeArrayDims];
};

template <int req>
struct DimValuesKernel {
  SYMNET_XINLINE static void Map(int64_t i, int64_t* out, DimValues d) {
    AssignReq<req>(&out[i], d.v[i]);
  }
};

/*! \brief Output: the input's dims (size_array: its size). */
template <typename xpu, bool size_only>
void ShapeArrayForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Shape& s = in[0].shape_;
  SYMNET_CHECK(s.ndim() <= kMaxShapeArrayDims)
      << "shape_array supports inputs of at most " << kMaxShapeArrayDims << " dims, got " << s;
  DimValues d{};
  if (size_only) {
    d.v[0] = s.Size();
  } else {
    for (int i = 0; i < s.ndim(); ++i) d.v[i] = s[i];
  }
  SYMNET_REQ_SWITCH(req[0], Req, {
    Kernel<DimValuesKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<int64_t>(), d);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_SHAPE_ARRAY_H_
