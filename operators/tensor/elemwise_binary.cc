/*!
 * \brief elemwise_add/sub/mul/div and the other binary math ops (_maximum, _power, _equal, ...)
 *  on same-shaped inputs, and their gradients.
 */
#include "binary_math_ops.h"
#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

namespace {

std::vector<std::string> BinaryInputNames(const NodeAttrs&) { return {"lhs", "rhs"}; }

std::vector<NodeEntry> AddGradient(const NodePtr&, const std::vector<NodeEntry>& ograds) {
  return {ograds[0], ograds[0]};
}

std::vector<NodeEntry> SubGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  return {ograds[0], MakeGradNode("negative", n, {ograds[0]}, {}, "backward_rhs")[0]};
}

}  // namespace

#define SYMNET_REGISTER_ELEMWISE_BINARY(NAME, FUNCTOR, DOC)                                \
  SYMNET_REGISTER_OP(NAME)                                                                 \
      .describe(DOC)                                                                       \
      .set_num_inputs(2)                                                                   \
      .add_argument("lhs", "NDArray-or-Symbol", "First input.")                            \
      .add_argument("rhs", "NDArray-or-Symbol", "Second input (same shape).")              \
      .set_attr<FListInputNames>("FListInputNames", BinaryInputNames)                      \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                                 \
      .set_attr<FInferType>("FInferType", ElemwiseType)                                    \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)                             \
      .set_attr<FInplaceOption>("FInplaceOption",                                          \
                                [](const NodeAttrs&) {                                     \
                                  return std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}; \
                                })                                                         \
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
    .set_attr<FCompute>("FCompute<cpu>", BinaryGradCompute<mathf::mul_grad>);

SYMNET_REGISTER_OP(_backward_div)
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FCompute>("FCompute<cpu>", BinaryGradCompute<mathf::div_grad>);

#define SYMNET_REGISTER_BINARY_MATH(NAME, ALIAS, DOC)                                 \
  SYMNET_REGISTER_ELEMWISE_BINARY(_##NAME, NAME, DOC ", element-wise (same shapes).") \
      .add_alias(#ALIAS)                                                              \
      .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_" #NAME));       \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                \
      .set_num_inputs(3)                                                              \
      .set_num_outputs(2)                                                             \
      .set_attr<TIsBackward>("TIsBackward", true)                                     \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)                        \
      .set_attr<FCompute>("FCompute<cpu>", BinaryGradCompute<mathf::NAME##_grad>);
SYMNET_BINARY_MATH_OPS(SYMNET_REGISTER_BINARY_MATH)

#define SYMNET_REGISTER_BINARY_LOGIC(NAME, ALIAS, DOC)                                \
  SYMNET_REGISTER_ELEMWISE_BINARY(_##NAME, NAME, DOC ", element-wise (same shapes).") \
      .add_alias(#ALIAS)                                                              \
      .set_attr<FGradient>("FGradient", NoInputGradients);
SYMNET_BINARY_LOGIC_OPS(SYMNET_REGISTER_BINARY_LOGIC)

}  // namespace ops
}  // namespace symnet
