/*!
 * \brief broadcast_add/sub/mul/div and the other binary math ops (broadcast_maximum,
 *  broadcast_power, broadcast_equal, ...) with NumPy broadcasting, and their gradients.
 */
#include "broadcast_binary.h"

#include "binary_math_ops.h"

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

#define SYMNET_REGISTER_BROADCAST_LINEAR_GRAD(NAME, NEGATE_RHS) \
  SYMNET_REGISTER_OP(NAME)                                      \
      .set_num_inputs(1)                                        \
      .set_num_outputs(2)                                       \
      .set_attr<TIsBackward>("TIsBackward", true)               \
      .set_attr<FCompute>("FCompute<cpu>", BroadcastLinearGradCompute<NEGATE_RHS>);
SYMNET_REGISTER_BROADCAST_LINEAR_GRAD(_backward_broadcast_add, false)
SYMNET_REGISTER_BROADCAST_LINEAR_GRAD(_backward_broadcast_sub, true)

// ops whose gradient reads both inputs: mul, div and the math ops (maximum, power, ...)
#define SYMNET_REGISTER_BROADCAST_WITH_GRAD(NAME, FUNCTOR, DOC)                         \
  SYMNET_REGISTER_BROADCAST(NAME, FUNCTOR, DOC, ElemwiseGradUseIn("_backward_" #NAME)); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                  \
      .set_num_inputs(3)                                                                \
      .set_num_outputs(2)                                                               \
      .set_attr<TIsBackward>("TIsBackward", true)                                       \
      .set_attr<FTempSpace>("FTempSpace", OutputSizedTemp)                              \
      .set_attr<FCompute>("FCompute<cpu>", BroadcastGradCompute<mathf::FUNCTOR##_grad>);
SYMNET_REGISTER_BROADCAST_WITH_GRAD(broadcast_mul, mul, "Multiplies")
SYMNET_REGISTER_BROADCAST_WITH_GRAD(broadcast_div, div, "Divides")
#define SYMNET_REGISTER_BROADCAST_MATH(NAME, ALIAS, DOC) \
  SYMNET_REGISTER_BROADCAST_WITH_GRAD(broadcast_##NAME, NAME, DOC ",")
SYMNET_BINARY_MATH_OPS(SYMNET_REGISTER_BROADCAST_MATH)

#define SYMNET_REGISTER_BROADCAST_LOGIC(NAME, ALIAS, DOC) \
  SYMNET_REGISTER_BROADCAST(broadcast_##NAME, NAME, DOC ",", NoInputGradients);
SYMNET_BINARY_LOGIC_OPS(SYMNET_REGISTER_BROADCAST_LOGIC)

}  // namespace ops
}  // namespace symnet
