/*! \brief Array-with-scalar ops behind Python's operators: _plus_scalar, _rdiv_scalar, ... */
#include "elemwise_scalar.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ScalarParam);

namespace {

std::map<std::string, std::string> ScalarDict(const NodePtr& n) {
  auto it = n->attrs.dict.find("scalar");
  if (it == n->attrs.dict.end()) return {};
  return {{"scalar", it->second}};
}

// d(x+s) = dy, d(x-s) = dy, d(s-x) = -dy, d(x*s) = dy*s, d(x/s) = dy/s, d(s/x) = -dy*s/x^2
std::vector<NodeEntry> PassGrad(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("_copy", n, {g[0]});
}
std::vector<NodeEntry> NegGrad(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("negative", n, {g[0]});
}
std::vector<NodeEntry> MulGrad(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("_mul_scalar", n, {g[0]}, ScalarDict(n));
}
std::vector<NodeEntry> DivGrad(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("_div_scalar", n, {g[0]}, ScalarDict(n));
}
/*! \brief dx = dy * f'(x) through the backward op `name`, which reads (dy, x) and the scalar. */
FGradient ScalarGradUseIn(const char* name) {
  return [name](const NodePtr& n, const std::vector<NodeEntry>& g) {
    return MakeGradNode(name, n, {g[0], n->inputs[0]}, ScalarDict(n));
  };
}

}  // namespace

#define SYMNET_REGISTER_SCALAR_OP(NAME, FUNCTOR, DOC, GRAD)          \
  SYMNET_REGISTER_OP(NAME)                                           \
      .describe(DOC)                                                 \
      .set_attr_parser(ParamParser<ScalarParam>)                     \
      .add_arguments(ParamDocs<ScalarParam>())                       \
      .add_argument("data", "NDArray-or-Symbol", "The input array.") \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)           \
      .set_attr<FInferType>("FInferType", ElemwiseType)              \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)       \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)    \
      .set_attr<FGradient>("FGradient", GRAD)                        \
      .set_attr<FCompute>("FCompute<cpu>", ScalarCompute<mathf::FUNCTOR>)

SYMNET_REGISTER_SCALAR_OP(_plus_scalar, plus, "y = x + scalar", PassGrad).add_alias("_PlusScalar");
SYMNET_REGISTER_SCALAR_OP(_minus_scalar, minus, "y = x - scalar", PassGrad)
    .add_alias("_MinusScalar");
SYMNET_REGISTER_SCALAR_OP(_rminus_scalar, rminus, "y = scalar - x", NegGrad)
    .add_alias("_RMinusScalar");
SYMNET_REGISTER_SCALAR_OP(_mul_scalar, mul, "y = x * scalar", MulGrad).add_alias("_MulScalar");
SYMNET_REGISTER_SCALAR_OP(_div_scalar, div, "y = x / scalar", DivGrad).add_alias("_DivScalar");
SYMNET_REGISTER_SCALAR_OP(_rdiv_scalar, rdiv, "y = scalar / x",
                          ScalarGradUseIn("_backward_rdiv_scalar"))
    .add_alias("_RDivScalar");

SYMNET_REGISTER_SCALAR_OP(_maximum_scalar, maximum, "y = max(x, scalar)",
                          ScalarGradUseIn("_backward_maximum_scalar"))
    .add_alias("_MaximumScalar");
SYMNET_REGISTER_SCALAR_OP(_minimum_scalar, minimum, "y = min(x, scalar)",
                          ScalarGradUseIn("_backward_minimum_scalar"))
    .add_alias("_MinimumScalar");
SYMNET_REGISTER_SCALAR_OP(_power_scalar, power, "y = x ^ scalar",
                          ScalarGradUseIn("_backward_power_scalar"))
    .add_alias("_PowerScalar");
SYMNET_REGISTER_SCALAR_OP(_rpower_scalar, rpower, "y = scalar ^ x",
                          ScalarGradUseIn("_backward_rpower_scalar"))
    .add_alias("_RPowerScalar");
SYMNET_REGISTER_SCALAR_OP(_mod_scalar, mod, "y = x mod scalar, with the sign of scalar", PassGrad)
    .add_alias("_ModScalar");
SYMNET_REGISTER_SCALAR_OP(_rmod_scalar, rmod, "y = scalar mod x, with the sign of x",
                          ScalarGradUseIn("_backward_rmod_scalar"))
    .add_alias("_RModScalar");
SYMNET_REGISTER_SCALAR_OP(_hypot_scalar, hypot, "y = sqrt(x^2 + scalar^2)",
                          ScalarGradUseIn("_backward_hypot_scalar"))
    .add_alias("_HypotScalar");

// comparisons with a scalar: 1 or 0 in x's dtype, no gradient
SYMNET_REGISTER_SCALAR_OP(_equal_scalar, equal, "y = (x == scalar)", NoInputGradients)
    .add_alias("_EqualScalar");
SYMNET_REGISTER_SCALAR_OP(_not_equal_scalar, not_equal, "y = (x != scalar)", NoInputGradients)
    .add_alias("_NotEqualScalar");
SYMNET_REGISTER_SCALAR_OP(_greater_scalar, greater, "y = (x > scalar)", NoInputGradients)
    .add_alias("_GreaterScalar");
SYMNET_REGISTER_SCALAR_OP(_greater_equal_scalar, greater_equal, "y = (x >= scalar)",
                          NoInputGradients)
    .add_alias("_GreaterEqualScalar");
SYMNET_REGISTER_SCALAR_OP(_lesser_scalar, lesser, "y = (x < scalar)", NoInputGradients)
    .add_alias("_LesserScalar");
SYMNET_REGISTER_SCALAR_OP(_lesser_equal_scalar, lesser_equal, "y = (x <= scalar)", NoInputGradients)
    .add_alias("_LesserEqualScalar");
SYMNET_REGISTER_SCALAR_OP(_logical_and_scalar, logical_and, "y = (x != 0 and scalar != 0)",
                          NoInputGradients)
    .add_alias("_LogicalAndScalar");
SYMNET_REGISTER_SCALAR_OP(_logical_or_scalar, logical_or, "y = (x != 0 or scalar != 0)",
                          NoInputGradients)
    .add_alias("_LogicalOrScalar");
SYMNET_REGISTER_SCALAR_OP(_logical_xor_scalar, logical_xor, "y = ((x != 0) xor (scalar != 0))",
                          NoInputGradients)
    .add_alias("_LogicalXorScalar");

// the scalar is sigma (MXNet's spelling); its default 1 gives the plain Huber loss
SYMNET_REGISTER_SCALAR_OP(smooth_l1, smooth_l1,
                          "Smooth L1 loss with sigma = scalar: 0.5 (sigma x)^2 where |x| < "
                          "1/sigma^2, else |x| - 0.5/sigma^2.",
                          ScalarGradUseIn("_backward_smooth_l1"));

#define SYMNET_REGISTER_SCALAR_GRAD(NAME, GRAD)                \
  SYMNET_REGISTER_OP(NAME)                                     \
      .set_num_inputs(2)                                       \
      .set_attr_parser(ParamParser<ScalarParam>)               \
      .add_arguments(ParamDocs<ScalarParam>())                 \
      .set_attr<TIsBackward>("TIsBackward", true)              \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform) \
      .set_attr<FCompute>("FCompute<cpu>", ScalarGradCompute<mathf::GRAD>);
SYMNET_SCALAR_GRAD_OPS(SYMNET_REGISTER_SCALAR_GRAD)

}  // namespace ops
}  // namespace symnet
