/*! \brief Broadcast binary kernels (broadcast_add, broadcast_maximum, ...) and their gradients,
 *  templated on the device. */
#ifndef SYMNET_OPERATORS_TENSOR_BROADCAST_BINARY_H_
#define SYMNET_OPERATORS_TENSOR_BROADCAST_BINARY_H_

#include <vector>

#include "../math_functors.h"
#include "../numeric_type_switch.h"
#include "broadcast_util.h"

namespace symnet {
namespace ops {

template <typename OP, int req>
struct BroadcastBinaryKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* a, const T* b, T* o, BroadcastMap ma,
                                 BroadcastMap mb) {
    using A = MathType<OP, T>;
    AssignReq<req>(&o[i],
                   OP::Map(static_cast<A>(a[ma.InOffset(i)]), static_cast<A>(b[mb.InOffset(i)])));
  }
};

template <typename OP, typename xpu = cpu>
void BroadcastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BroadcastMap ma(in[0].shape_, out[0].shape_), mb(in[1].shape_, out[0].shape_);
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<BroadcastBinaryKernel<OP, Req>, xpu>::Launch(
          out[0].Size(), in[0].dptr<T>(), in[1].dptr<T>(), out[0].dptr<T>(), ma, mb);
    });
  });
}

/*! \brief dL/dlhs and dL/drhs of broadcast_add (negate_rhs false) and broadcast_sub (true):
 *  dy summed onto each input's shape. Input (dy). */
template <bool negate_rhs, typename xpu = cpu>
void BroadcastLinearGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& og = in[0];
  SYMNET_FLOAT_TYPE_SWITCH(og.dtype_, T, {
    ReduceToShape<xpu>(og.dptr<T>(), og.shape_, out[0].dptr<T>(), out[0].shape_, req[0], 1.0);
    ReduceToShape<xpu>(og.dptr<T>(), og.shape_, out[1].dptr<T>(), out[1].shape_, req[1],
                       negate_rhs ? -1.0 : 1.0);
  });
}

/*! \brief tmp[i] = dy[i] times the partial derivative (GRAD's Left or Right) of input `side`,
 *  per output element, before it is summed onto the input's shape. */
template <typename GRAD>
struct PartialGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* dy, const T* a, const T* b, BroadcastMap ma,
                                 BroadcastMap mb, int side, T* tmp) {
    using A = MathType<GRAD, T>;
    const A x = static_cast<A>(a[ma.InOffset(i)]), y = static_cast<A>(b[mb.InOffset(i)]);
    const A d = side == 0 ? GRAD::Left(x, y) : GRAD::Right(x, y);
    tmp[i] = T(static_cast<A>(dy[i]) * d);
  }
};

/*! \brief BroadcastGradCompute for data of type T. */
template <typename GRAD, typename xpu, typename T>
void BroadcastGradTyped(const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& og = in[0];
  const int64_t n = og.Size();
  // form the per-output-element product in scratch, then reduce it onto each input's shape
  SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(n) * sizeof(T)) << "scratch too small";
  T* tmp = static_cast<T*>(ctx.temp);
  const BroadcastMap ma(in[1].shape_, og.shape_), mb(in[2].shape_, og.shape_);
  for (int side = 0; side < 2; ++side) {
    if (req[side] == kNullOp) continue;
    Kernel<PartialGradKernel<GRAD>, xpu>::Launch(n, og.dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
                                                 ma, mb, side, tmp);
    ReduceToShape<xpu>(static_cast<const T*>(tmp), og.shape_, out[side].dptr<T>(), out[side].shape_,
                       req[side], 1.0);
  }
}

/*! \brief The gradients of a broadcast op with partials GRAD. Inputs (dy, a, b). Integers too on
 *  the CPU (mod's gradient is 0 on them, as MXNet's); a GPU's block reduction is float-only. */
template <typename GRAD, typename xpu = cpu>
void BroadcastGradCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if constexpr (std::is_same<xpu, gpu>::value) {
    SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T,
                             { BroadcastGradTyped<GRAD, xpu, T>(ctx, in, req, out); });
  } else {
    SYMNET_NUMERIC_TYPE_SWITCH(in[0].dtype_, T,
                               { BroadcastGradTyped<GRAD, xpu, T>(ctx, in, req, out); });
  }
}

/*! \brief The differentiable ops whose gradient needs the inputs, as X(NAME, functor): their
 *  partials are mathf::FUNCTOR_grad. Expanded by broadcast_binary.cc/.cu with
 *  SYMNET_BINARY_MATH_OPS (binary_math_ops.h). */
#define SYMNET_BROADCAST_PRODUCT_OPS(X) X(broadcast_mul, mul) X(broadcast_div, div)

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BROADCAST_BINARY_H_
