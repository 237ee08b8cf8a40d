/*!
 * \brief batch_take (MXNet 1.x, deprecated there in favour of pick): out[i] = a[i, indices[i]]
 *  for 2-D `a` of shape (n, m) and int32 indices of shape (n,). An index outside [0, m) is
 *  clipped to it, as MXNet's kernel does. No gradient rule, as in MXNet: binding it for
 *  gradients is an error (put stop_gradient after it). One thread per row, on either device.
 */
#ifndef SYMNET_OPERATORS_TENSOR_BATCH_TAKE_H_
#define SYMNET_OPERATORS_TENSOR_BATCH_TAKE_H_

#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

template <int req>
struct BatchTakeKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* a, const int32_t* idx, T* y, int64_t m) {
    int64_t j = idx[i];
    j = j < 0 ? 0 : (j >= m ? m - 1 : j);
    AssignReq<req>(&y[i], a[i * m + j]);
  }
};

template <typename xpu = cpu>
void BatchTakeForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].Size() == 0) return;
  const int64_t n = in[0].shape_[0], m = in[0].shape_[1];
  SYMNET_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<BatchTakeKernel<Req>, xpu>::Launch(n, in[0].dptr<T>(), in[1].dptr<int32_t>(),
                                                out[0].dptr<T>(), m);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BATCH_TAKE_H_
