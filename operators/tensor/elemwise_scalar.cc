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
std::vector<NodeEntry> RDivGrad(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("_backward_rdiv_scalar", n, {g[0], n->inputs[0]}, ScalarDict(n));
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
SYMNET_REGISTER_SCALAR_OP(_rdiv_scalar, rdiv, "y = scalar / x", RDivGrad).add_alias("_RDivScalar");

SYMNET_REGISTER_OP(_backward_rdiv_scalar)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<ScalarParam>)
    .add_arguments(ParamDocs<ScalarParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FCompute>("FCompute<cpu>", ScalarGradCompute<mathf::rdiv_grad>);

}  // namespace ops
}  // namespace symnet
