/*! \brief broadcast_add/sub/mul/div with NumPy broadcasting, and their gradients. */
#include "broadcast_binary.h"

namespace symnet {
namespace ops {

namespace {

bool BroadcastBinaryShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape o;
  if (!BroadcastShapes((*in)[0], (*in)[1], &o)) return false;
  AssignOutShape(out, 0, o);
  return true;
}

size_t OutputSizedTemp(const NodeAttrs&, const std::vector<Shape>& shapes,
                       const std::vector<DType>& types) {
  return static_cast<size_t>(shapes[0].Size()) * DTypeSize(types[0]);
}

std::vector<std::string> BinaryInputNames(const NodeAttrs&) { return {"lhs", "rhs"}; }

}  // namespace

#define SYMNET_REGISTER_BROADCAST(NAME, FUNCTOR, DOC, GRAD)           \
  SYMNET_REGISTER_OP(NAME)                                            \
      .describe(DOC " with NumPy-style broadcasting.")                \
      .set_num_inputs(2)                                              \
      .add_argument("lhs", "NDArray-or-Symbol", "First input.")       \
      .add_argument("rhs", "NDArray-or-Symbol", "Second input.")      \
      .set_attr<FListInputNames>("FListInputNames", BinaryInputNames) \
      .set_attr<FInferShape>("FInferShape", BroadcastBinaryShape)     \
      .set_attr<FInferType>("FInferType", ElemwiseType)               \
      .set_attr<FGradient>("FGradient", GRAD)                         \
      .set_attr<FCompute>("FCompute<cpu>", BroadcastCompute<mathf::FUNCTOR>)

SYMNET_REGISTER_BROADCAST(broadcast_add, plus, "Adds",
                          ElemwiseGradUseNone("_backward_broadcast_add"))
    .add_alias("broadcast_plus");
SYMNET_REGISTER_BROADCAST(broadcast_sub, minus, "Subtracts",
                          ElemwiseGradUseNone("_backward_broadcast_sub"))
    .add_alias("broadcast_minus");
SYMNET_REGISTER_BROADCAST(broadcast_mul, mul, "Multiplies",
                          ElemwiseGradUseIn("_backward_broadcast_mul"));
SYMNET_REGISTER_BROADCAST(broadcast_div, div, "Divides",
                          ElemwiseGradUseIn("_backward_broadcast_div"));

#define SYMNET_REGISTER_BROADCAST_GRAD(NAME, NIN, KIND) \
  SYMNET_REGISTER_OP(NAME)                              \
      .set_num_inputs(NIN)                              \
      .set_num_outputs(2)                               \
      .set_attr<TIsBackward>("TIsBackward", true)       \
      .set_attr<FCompute>("FCompute<cpu>", BroadcastGradCompute<KIND>)

SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_add, 1, BGrad::kAdd);
SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_sub, 1, BGrad::kSub);
SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_mul, 3, BGrad::kMul)
    .set_attr<FTempSpace>("FTempSpace", OutputSizedTemp);
SYMNET_REGISTER_BROADCAST_GRAD(_backward_broadcast_div, 3, BGrad::kDiv)
    .set_attr<FTempSpace>("FTempSpace", OutputSizedTemp);

}  // namespace ops
}  // namespace symnet
