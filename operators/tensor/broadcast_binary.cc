/*! \brief broadcast_add/sub/mul/div with NumPy broadcasting, and their gradients. */
#include "../math_functors.h"
#include "broadcast_util.h"

namespace symnet {
namespace ops {

namespace {

bool BroadcastBinaryShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape o;
  if (!BroadcastShapes((*in)[0], (*in)[1], &o)) return false;
  AssignOutShape(out, 0, o);
  return true;
}

template <typename OP, typename T>
void BroadcastLoop(const T* a, const T* b, T* o, const BroadcastMap& ma, const BroadcastMap& mb,
                   int64_t n, OpReqType req) {
  using A = AccType<T>;
  const bool add = req == kAddTo;
#pragma omp parallel for if (n >= kOmpMinWork)
  for (int64_t i = 0; i < n; ++i) {
    const A v = OP::Map(static_cast<A>(a[ma.InOffset(i)]), static_cast<A>(b[mb.InOffset(i)]));
    if (add) {
      AssignReq<kAddTo>(&o[i], v);
    } else {
      AssignReq<kWriteTo>(&o[i], v);
    }
  }
}

template <typename OP>
void BroadcastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const BroadcastMap ma(in[0].shape_, out[0].shape_), mb(in[1].shape_, out[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    BroadcastLoop<OP>(in[0].dptr<T>(), in[1].dptr<T>(), out[0].dptr<T>(), ma, mb, out[0].Size(),
                      req[0]);
  });
}

/*! \brief Gradient kinds: which product is reduced onto each input. */
enum class BGrad { kAdd, kSub, kMul, kDiv };

/*! \brief tmp[i] = the per-element gradient of input `side` for mul/div, before reduction. */
template <BGrad kind, typename T>
void ProductGrad(const T* dy, const T* a, const T* b, const BroadcastMap& ma,
                 const BroadcastMap& mb, int64_t n, int side, T* tmp) {
  using A = AccType<T>;
#pragma omp parallel for if (n >= kOmpMinWork)
  for (int64_t i = 0; i < n; ++i) {
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
}

template <BGrad kind>
void BroadcastGradCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& og = in[0];
  const int64_t n = og.Size();
  SYMNET_FLOAT_TYPE_SWITCH(og.dtype_, T, {
    if constexpr (kind == BGrad::kAdd || kind == BGrad::kSub) {
      ReduceToShape(og.dptr<T>(), og.shape_, out[0].dptr<T>(), out[0].shape_, req[0], 1.0);
      ReduceToShape(og.dptr<T>(), og.shape_, out[1].dptr<T>(), out[1].shape_, req[1],
                    kind == BGrad::kSub ? -1.0 : 1.0);
    } else {
      // inputs (dy, a, b): form the per-output-element product in scratch, then reduce it
      SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(n) * sizeof(T)) << "scratch too small";
      T* tmp = static_cast<T*>(ctx.temp);
      const BroadcastMap ma(in[1].shape_, og.shape_), mb(in[2].shape_, og.shape_);
      for (int side = 0; side < 2; ++side) {
        if (req[side] == kNullOp) continue;
        ProductGrad<kind>(og.dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(), ma, mb, n, side, tmp);
        ReduceToShape(tmp, og.shape_, out[side].dptr<T>(), out[side].shape_, req[side], 1.0);
      }
    }
  });
}

size_t OutputSizedTemp(const NodeAttrs&, const std::vector<Shape>& shapes,
                        const std::vector<DType>& types) {
  return static_cast<size_t>(shapes[0].Size()) * DTypeSize(types[0]);
}

std::vector<std::string> BinaryInputNames(const NodeAttrs&) { return {"lhs", "rhs"}; }

}  // namespace

#define SYMNET_REGISTER_BROADCAST(NAME, FUNCTOR, DOC, GRAD)                        \
  SYMNET_REGISTER_OP(NAME)                                                         \
      .describe(DOC " with NumPy-style broadcasting.")                             \
      .set_num_inputs(2)                                                           \
      .add_argument("lhs", "NDArray-or-Symbol", "First input.")                    \
      .add_argument("rhs", "NDArray-or-Symbol", "Second input.")                   \
      .set_attr<FListInputNames>("FListInputNames", BinaryInputNames)              \
      .set_attr<FInferShape>("FInferShape", BroadcastBinaryShape)                  \
      .set_attr<FInferType>("FInferType", ElemwiseType)                            \
      .set_attr<FGradient>("FGradient", GRAD)                                      \
      .set_attr<FCompute>("FCompute<cpu>", BroadcastCompute<mathf::FUNCTOR>)

SYMNET_REGISTER_BROADCAST(broadcast_add, plus, "Adds", ElemwiseGradUseNone("_backward_broadcast_add"))
    .add_alias("broadcast_plus");
SYMNET_REGISTER_BROADCAST(broadcast_sub, minus, "Subtracts", ElemwiseGradUseNone("_backward_broadcast_sub"))
    .add_alias("broadcast_minus");
SYMNET_REGISTER_BROADCAST(broadcast_mul, mul, "Multiplies", ElemwiseGradUseIn("_backward_broadcast_mul"));
SYMNET_REGISTER_BROADCAST(broadcast_div, div, "Divides", ElemwiseGradUseIn("_backward_broadcast_div"));

#define SYMNET_REGISTER_BROADCAST_GRAD(NAME, NIN, KIND)             \
  SYMNET_REGISTER_OP(NAME)                                          \
      .set_num_inputs(NIN)                                          \
      .set_num_outputs(2)                                           \
      .set_attr<TIsBackward>("TIsBackward", true)                   \
      .set_attr<FCompute>("FCompute<cpu>", BroadcastGradCompute<KIND>)

SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_add, 1, BGrad::kAdd);
SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_sub, 1, BGrad::kSub);
SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_mul, 3, BGrad::kMul)
    .set_attr<FTempSpace>("FTempSpace", OutputSizedTemp);
SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_div, 3, BGrad::kDiv)
    .set_attr<FTempSpace>("FTempSpace", OutputSizedTemp);

}  // namespace ops
}  // namespace symnet
