/*!
 * \brief FuseAddReLU and FuseGradSumReLU: a sum read only by a ReLU, in forward (a residual add
 *  then its ReLU, before the gradient pass) and in backward (a gradient sum then the ReLU's
 *  gradient, after it), become one element-wise loop each (operators/tensor/add_relu.cc).
 */
#include <string>
#include <unordered_map>

#include "src/pass/fusion_graph.h"

namespace symnet {

using fusion::Is;
using fusion::IsReLU;

size_t FuseAddReLU(std::vector<NodeEntry>* heads) {
  const fusion::Readers r(*heads);
  std::unordered_map<const Node*, NodeEntry> replaced;  // ReLU -> fused output
  for (const auto& add : r.topo) {
    if (!Is(*add, "elemwise_add")) continue;
    const NodePtr relu = r.SoleUser(add);
    if (!relu || !IsReLU(*relu)) continue;
    // named after the ReLU: the group's output keeps the name the user sees
    NodePtr fused = CreateOpNode(Op::Get("_FusedAddReLU"), relu->attrs.name, {}, add->inputs);
    replaced[relu.get()] = NodeEntry{fused, 0, 0};
  }
  return fusion::Redirect(r.topo, replaced, heads);
}

size_t FuseGradSumReLU(std::vector<NodeEntry>* heads) {
  const fusion::Readers r(*heads);
  std::unordered_map<const Node*, NodeEntry> replaced;  // ReLU backward -> fused output
  for (const auto& sum : r.topo) {
    if (!Is(*sum, "add_n") && !Is(*sum, "elemwise_add")) continue;
    const NodePtr grad = r.SoleUser(sum);
    if (!grad || !IsReLU(*grad, "_backward_Activation", "_backward_relu")) continue;
    // (dy, y): the sum must be the output gradient, not the ReLU's output
    if (grad->inputs.size() != 2 || grad->inputs[0].node != sum) continue;
    std::vector<NodeEntry> inputs{grad->inputs[1]};
    inputs.insert(inputs.end(), sum->inputs.begin(), sum->inputs.end());
    NodePtr fused = CreateOpNode(Op::Get("_backward_FusedAddNReLU"), grad->attrs.name,
                                 {{"num_args", std::to_string(sum->inputs.size())}}, inputs);
    // still the gradient of the same forward node (shape and dtype inference go through it)
    fused->control_deps = grad->control_deps;
    replaced[grad.get()] = NodeEntry{fused, 0, 0};
  }
  return fusion::Redirect(r.topo, replaced, heads);
}

}  // namespace symnet
