/*!
 * \brief FuseBatchNormReLU: BatchNorm -> ReLU pairs into _FusedBatchNormReLU nodes for CPU
 *  training binds, so that oneDNN's normalization applies the ReLU and, in backward, its mask
 *  (no ReLU pass and no ReLU-gradient pass over the activations). Runs before the gradient pass:
 *  the fused node brings its own backward op.
 */
#include <map>
#include <string>
#include <unordered_map>

#include "symnet/pass.h"

namespace symnet {

namespace {

bool Is(const Node& n, const char* op) { return !n.is_variable() && n.op()->name == op; }

bool IsReLU(const Node& n) {
  if (Is(n, "relu")) return true;
  if (!Is(n, "Activation")) return false;
  auto it = n.attrs.dict.find("act_type");
  return it != n.attrs.dict.end() && it->second == "relu";
}

}  // namespace

size_t FuseBatchNormReLU(std::vector<NodeEntry>* heads) {
  std::vector<NodePtr> topo;
  DFSVisit(*heads, [&](const NodePtr& n) { topo.push_back(n); });
  std::unordered_map<NodeEntry, int, NodeEntryHash> uses;
  std::unordered_map<const Node*, NodePtr> user;  // the last reader of output 0
  for (const auto& n : topo)
    for (const auto& e : n->inputs) {
      ++uses[e];
      if (e.index == 0) user[e.node.get()] = n;
    }
  for (const auto& e : *heads) uses[e] += 1000;  // a graph output is read by the user
  auto used = [&](const NodePtr& n, uint32_t i) {
    auto it = uses.find(NodeEntry{n, i, 0});
    return it == uses.end() ? 0 : it->second;
  };

  std::unordered_map<const Node*, NodeEntry> replaced;  // ReLU -> fused output
  for (const auto& bn : topo) {
    // BatchNorm's output feeds the ReLU only, and its mean and variance nobody (the fused node
    // shows one output: the ReLU's)
    if (!Is(*bn, "BatchNorm") || used(bn, 0) != 1 || used(bn, 1) || used(bn, 2)) continue;
    const NodePtr relu = user[bn.get()];
    if (!IsReLU(*relu) || relu->inputs.size() != 1) continue;
    std::map<std::string, std::string> dict;
    for (const auto& kv : bn->attrs.dict)
      if (!IsUserAttr(kv.first)) dict.insert(kv);
    // named after the ReLU: the group's output keeps the name the user sees
    NodePtr fused =
        CreateOpNode(Op::Get("_FusedBatchNormReLU"), relu->attrs.name, dict, bn->inputs);
    replaced[relu.get()] = NodeEntry{fused, 0, 0};
  }
  if (replaced.empty()) return 0;
  auto redirect = [&](NodeEntry* e) {
    auto it = replaced.find(e->node.get());
    if (it != replaced.end()) *e = it->second;  // a ReLU has one output
  };
  for (const auto& n : topo)
    for (auto& e : n->inputs) redirect(&e);
  // the fused nodes too: a BatchNorm may read a ReLU fused away (BN -> ReLU -> BN -> ReLU)
  for (const auto& kv : replaced)
    for (auto& e : kv.second.node->inputs) redirect(&e);
  for (auto& e : *heads) redirect(&e);
  return replaced.size();
}

}  // namespace symnet
