/*!
 * \brief FuseAddReLU and FuseGradSumReLU: a sum read only by a ReLU, in forward (a residual add
 *  then its ReLU, before the gradient pass) and in backward (a gradient sum then the ReLU's
 *  gradient, after it), become one element-wise loop each (operators/tensor/add_relu.cc).
 */
#include <string>
#include <unordered_map>

#include "symnet/pass.h"

namespace symnet {

namespace {

bool Is(const Node& n, const char* op) { return !n.is_variable() && n.op()->name == op; }

bool IsReLUOp(const Node& n, const char* activation, const char* relu) {
  if (Is(n, relu)) return true;
  if (!Is(n, activation)) return false;
  auto it = n.attrs.dict.find("act_type");
  return it != n.attrs.dict.end() && it->second == "relu";
}

/*! \brief Who reads what: the count of readers of each entry and the last reader of output 0. */
struct Readers {
  std::vector<NodePtr> topo;
  std::unordered_map<NodeEntry, int, NodeEntryHash> uses;
  std::unordered_map<const Node*, NodePtr> user;
  explicit Readers(const std::vector<NodeEntry>& heads) {
    DFSVisit(heads, [&](const NodePtr& n) { topo.push_back(n); });
    for (const auto& n : topo)
      for (const auto& e : n->inputs) {
        ++uses[e];
        if (e.index == 0) user[e.node.get()] = n;
      }
    for (const auto& e : heads) uses[e] += 1000;  // a graph output is read by the user
  }
  /*! \brief The only reader of n's output 0 (none when n has other readers or outputs). */
  NodePtr SoleUser(const NodePtr& n) const {
    if (n->num_outputs() != 1) return nullptr;
    auto it = uses.find(NodeEntry{n, 0, 0});
    return it != uses.end() && it->second == 1 ? user.at(n.get()) : nullptr;
  }
};

/*!
 * \brief Points every reader of a replaced node's output 0 at its replacement, the new nodes'
 *  own inputs included (copied from nodes that may have been replaced too).
 */
size_t Redirect(const std::vector<NodePtr>& topo,
                const std::unordered_map<const Node*, NodeEntry>& replaced,
                std::vector<NodeEntry>* heads) {
  if (replaced.empty()) return 0;
  auto redirect = [&](NodeEntry* e) {
    auto it = replaced.find(e->node.get());
    if (it != replaced.end()) *e = it->second;
  };
  for (const auto& n : topo)
    for (auto& e : n->inputs) redirect(&e);
  for (const auto& kv : replaced)
    for (auto& e : kv.second.node->inputs) redirect(&e);
  for (auto& e : *heads) redirect(&e);
  return replaced.size();
}

}  // namespace

size_t FuseAddReLU(std::vector<NodeEntry>* heads) {
  const Readers r(*heads);
  std::unordered_map<const Node*, NodeEntry> replaced;  // ReLU -> fused output
  for (const auto& add : r.topo) {
    if (!Is(*add, "elemwise_add")) continue;
    const NodePtr relu = r.SoleUser(add);
    if (!relu || !IsReLUOp(*relu, "Activation", "relu")) continue;
    // named after the ReLU: the group's output keeps the name the user sees
    NodePtr fused = CreateOpNode(Op::Get("_FusedAddReLU"), relu->attrs.name, {}, add->inputs);
    replaced[relu.get()] = NodeEntry{fused, 0, 0};
  }
  return Redirect(r.topo, replaced, heads);
}

size_t FuseGradSumReLU(std::vector<NodeEntry>* heads) {
  const Readers r(*heads);
  std::unordered_map<const Node*, NodeEntry> replaced;  // ReLU backward -> fused output
  for (const auto& sum : r.topo) {
    if (!Is(*sum, "add_n") && !Is(*sum, "elemwise_add")) continue;
    const NodePtr grad = r.SoleUser(sum);
    if (!grad || !IsReLUOp(*grad, "_backward_Activation", "_backward_relu")) continue;
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
  return Redirect(r.topo, replaced, heads);
}

}  // namespace symnet
