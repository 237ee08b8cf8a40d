/*! \brief elemwise_add/sub/mul/div on same-shaped inputs, and their gradients. */
#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

namespace {

/*! \brief d(a*b) = (dy*b, dy*a); d(a/b) = (dy/b, -dy*a/b^2). Inputs (dy, a, b). */
template <int req_a, int req_b, bool is_div>
struct MulDivGradKernel {
  template <typename T>
  static void Map(int64_t i, T* ga, T* gb, const T* dy, const T* a, const T* b) {
    using A = AccType<T>;
    const A g = static_cast<A>(dy[i]), x = static_cast<A>(a[i]), y = static_cast<A>(b[i]);
    if (is_div) {
      AssignReq<req_a>(&ga[i], g / y);
      AssignReq<req_b>(&gb[i], -g * x / (y * y));
    } else {
      AssignReq<req_a>(&ga[i], g * y);
      AssignReq<req_b>(&gb[i], g * x);
    }
  }
};

template <bool is_div>
void MulDivGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  // kNullOp on one side still computes the other: map it to writing nowhere useful is not
  // possible, so a null request is treated as a write into the (planned) buffer.
  auto r = [](OpReqType q) { return q == kNullOp ? kWriteTo : q; };
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(r(req[0]), RA, {
      SYMNET_REQ_SWITCH(r(req[1]), RB, {
        Kernel<MulDivGradKernel<RA, RB, is_div>, cpu>::Launch(
            out[0].Size(), out[0].dptr<T>(), out[1].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(),
            in[2].dptr<T>());
      });
    });
  });
}

std::vector<std::string> BinaryInputNames(const NodeAttrs&) { return {"lhs", "rhs"}; }

std::vector<NodeEntry> AddGradient(const NodePtr&, const std::vector<NodeEntry>& ograds) {
  return {ograds[0], ograds[0]};
}

std::vector<NodeEntry> SubGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  return {ograds[0], MakeGradNode("negative", n, {ograds[0]}, {}, "backward_rhs")[0]};
}

}  // namespace

#define SYMNET_REGISTER_ELEMWISE_BINARY(NAME, FUNCTOR, DOC)                       \
  SYMNET_REGISTER_OP(NAME)                                                        \
      .describe(DOC)                                                              \
      .set_num_inputs(2)                                                          \
      .add_argument("lhs", "NDArray-or-Symbol", "First input.")                   \
      .add_argument("rhs", "NDArray-or-Symbol", "Second input (same shape).")     \
      .set_attr<FListInputNames>("FListInputNames", BinaryInputNames)             \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                        \
      .set_attr<FInferType>("FInferType", ElemwiseType)                           \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)                    \
      .set_attr<FInplaceOption>("FInplaceOption",                                 \
                                [](const NodeAttrs&) {                            \
                                  return std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}; \
                                })                                                \
      .set_attr<FCompute>("FCompute<cpu>", BinaryCompute<mathf::FUNCTOR>)

SYMNET_REGISTER_ELEMWISE_BINARY(elemwise_add, plus, "Adds arguments element-wise.")
    .add_alias("_Plus")
    .add_alias("_plus")
    .add_alias("_add")
    .set_attr<FGradient>("FGradient", AddGradient);

SYMNET_REGISTER_ELEMWISE_BINARY(elemwise_sub, minus, "Subtracts arguments element-wise.")
    .add_alias("_Minus")
    .add_alias("_minus")
    .add_alias("_sub")
    .set_attr<FGradient>("FGradient", SubGradient);

SYMNET_REGISTER_ELEMWISE_BINARY(elemwise_mul, mul, "Multiplies arguments element-wise.")
    .add_alias("_Mul")
    .add_alias("_mul")
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_mul"));

SYMNET_REGISTER_ELEMWISE_BINARY(elemwise_div, div, "Divides arguments element-wise.")
    .add_alias("_Div")
    .add_alias("_div")
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_div"));

SYMNET_REGISTER_OP(_backward_mul)
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FCompute>("FCompute<cpu>", MulDivGradCompute<false>);

SYMNET_REGISTER_OP(_backward_div)
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FCompute>("FCompute<cpu>", MulDivGradCompute<true>);

}  // namespace ops
}  // namespace symnet
