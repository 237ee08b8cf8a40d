/*! \brief broadcast_add/sub/mul/div kernels and their gradients, templated on the device. */
#ifndef SYMNET_OPERATORS_TENSOR_BROADCAST_BINARY_H_
#define SYMNET_OPERATORS_TENSOR_BROADCAST_BINARY_H_

#include <vector>

#include "../math_functors.h"
#include "broadcast_util.h"

namespace symnet {
namespace ops {

template <typename OP, int req>
struct BroadcastBinaryKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* a, const T* b, T* o, BroadcastMap ma,
                                 BroadcastMap mb) {
    using A = AccType<T>;
    AssignReq<req>(&o[i],
                   OP::Map(static_cast<A>(a[ma.InOffset(i)]), static_cast<A>(b[mb.InOffset(i)])));
  }
};

template <typename OP, typename xpu = cpu>
void BroadcastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BroadcastMap ma(in[0].shape_, out[0].shape_), mb(in[1].shape_, out[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<BroadcastBinaryKernel<OP, Req>, xpu>::Launch(
          out[0].Size(), in[0].dptr<T>(), in[1].dptr<T>(), out[0].dptr<T>(), ma, mb);
    });
  });
}

/*! \brief Gradient kinds: which product is reduced onto each input. */
enum class BGrad { kAdd, kSub, kMul, kDiv };

/*! \brief tmp[i] = the per-element gradient of input `side` for mul/div, before reduction. */
template <BGrad kind>
struct ProductGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* dy, const T* a, const T* b, BroadcastMap ma,
                                 BroadcastMap mb, int side, T* tmp) {
    using A = AccType<T>;
    const A g = static_cast<A>(dy[i]);
    const A x = static_cast<A>(a[ma.InOffset(i)]), y = static_cast<A>(b[mb.InOffset(i)]);
    A v;
    if (kind == BGrad::kMul) {
      v = side == 0 ? g * y : g * x;
    } else {
      v = side == 0 ? g / y : -g * x / (y * y);
    }
    tmp[i] = T(v);
  }
};

template <BGrad kind, typename xpu = cpu>
void BroadcastGradCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& og = in[0];
  const int64_t n = og.Size();
  SYMNET_FLOAT_TYPE_SWITCH(og.dtype_, T, {
    if constexpr (kind == BGrad::kAdd || kind == BGrad::kSub) {
      ReduceToShape<xpu>(og.dptr<T>(), og.shape_, out[0].dptr<T>(), out[0].shape_, req[0], 1.0);
      ReduceToShape<xpu>(og.dptr<T>(), og.shape_, out[1].dptr<T>(), out[1].shape_, req[1],
                         kind == BGrad::kSub ? -1.0 : 1.0);
    } else {
      // inputs (dy, a, b): form the per-output-element product in scratch, then reduce it
      SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(n) * sizeof(T)) << "scratch too small";
      T* tmp = static_cast<T*>(ctx.temp);
      const BroadcastMap ma(in[1].shape_, og.shape_), mb(in[2].shape_, og.shape_);
      for (int side = 0; side < 2; ++side) {
        if (req[side] == kNullOp) continue;
        Kernel<ProductGradKernel<kind>, xpu>::Launch(n, og.dptr<T>(), in[1].dptr<T>(),
                                                     in[2].dptr<T>(), ma, mb, side, tmp);
        ReduceToShape<xpu>(static_cast<const T*>(tmp), og.shape_, out[side].dptr<T>(),
                           out[side].shape_, req[side], 1.0);
      }
    }
  });
}

/*! \brief The ops as X(NAME, functor, gradient kind); expanded by broadcast_binary.cc/.cu. */
#define SYMNET_BROADCAST_OPS(X) \
  X(broadcast_add, plus, kAdd)  \
  X(broadcast_sub, minus, kSub) X(broadcast_mul, mul, kMul) X(broadcast_div, div, kDiv)

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BROADCAST_BINARY_H_
