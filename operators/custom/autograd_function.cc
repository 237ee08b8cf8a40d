/*!
 * \brief _autograd_function: how autograd's tape holds a computation it did not record op by op
 *  (mx.autograd.Function, a hybridized Gluon block run by its bound executor). The node carries
 *  the number of inputs and outputs; its backward is a closure autograd keeps on the node
 *  (AutogradRecord::backward) and calls itself, so neither op ever runs as a kernel.
 */
#include <string>

#include "operators/operator_common.h"

namespace symnet {
namespace ops {

namespace {

uint32_t Count(const NodeAttrs& a, const char* key) {
  auto it = a.dict.find(key);
  SYMNET_CHECK(it != a.dict.end()) << "_autograd_function: attribute " << key << " missing";
  return static_cast<uint32_t>(std::stoul(it->second));
}

void OnlyInsideBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                        const std::vector<OpReqType>&, const std::vector<TBlob>&) {
  SYMNET_THROW << attrs.op->name << " runs only inside autograd.backward (it stands for a "
               << "function autograd recorded as a whole)";
}

std::vector<NodeEntry> FunctionGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  return MakeGradNode("_backward_autograd_function", n, ograds,
                      {{"num_inputs", std::to_string(ograds.size())},
                       {"num_outputs", std::to_string(n->inputs.size())}});
}

}  // namespace

// both are hidden from user APIs (TIsBackward): only autograd makes them
SYMNET_REGISTER_OP(_autograd_function)
    .describe("A function autograd recorded as a whole (internal).")
    .set_num_inputs([](const NodeAttrs& a) { return Count(a, "num_inputs"); })
    .set_num_outputs([](const NodeAttrs& a) { return Count(a, "num_outputs"); })
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FGradient>("FGradient", FunctionGradient)
    .set_attr<FCompute>("FCompute<cpu>", OnlyInsideBackward) SYMNET_ALSO_GPU(OnlyInsideBackward);

SYMNET_REGISTER_OP(_backward_autograd_function)
    .set_num_inputs([](const NodeAttrs& a) { return Count(a, "num_inputs"); })
    .set_num_outputs([](const NodeAttrs& a) { return Count(a, "num_outputs"); })
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", OnlyInsideBackward) SYMNET_ALSO_GPU(OnlyInsideBackward);

}  // namespace ops
}  // namespace symnet
