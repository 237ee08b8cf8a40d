/*!
 * \brief EliminateCommonExpr: nodes that compute the same thing (same operator, same
 *  parameters, same inputs) become one, as MXNet's bind does (MXNET_ELIMINATE_COMMON_EXPR,
 *  on by default). Ops whose result is not a function of their inputs and parameters alone keep
 *  every node: ops that draw random numbers, mutate inputs (BatchNorm's moving statistics,
 *  optimizer updates) or call back into user code.
 */
#include <map>
#include <string>
#include <unordered_map>

#include "symnet/pass.h"

namespace symnet {

namespace {

bool Mergeable(const Node& n) {
  if (n.is_variable() || !n.control_deps.empty()) return false;
  const Op* op = n.op();
  const TDrawsRandom* random = op->attr<TDrawsRandom>("TDrawsRandom");
  const THostCallback* host = op->attr<THostCallback>("THostCallback");
  return !(random && *random) && !(host && *host) && !op->has_attr("FMutateInputs");
}

/*! \brief What makes two nodes compute the same: operator, parameters, inputs. */
std::string Key(const Node& n) {
  std::string k = n.op()->name;
  for (const auto& kv : n.attrs.dict) k += '\n' + kv.first + '=' + kv.second;
  k += "\n|";
  for (const auto& e : n.inputs)
    k += std::to_string(reinterpret_cast<uintptr_t>(e.node.get())) + ':' + std::to_string(e.index) +
         ',';
  return k;
}

}  // namespace

size_t EliminateCommonExpr(std::vector<NodeEntry>* heads) {
  std::vector<NodePtr> topo;
  DFSVisit(*heads, [&](const NodePtr& n) { topo.push_back(n); });
  std::unordered_map<const Node*, NodePtr> same_as;  // a merged node -> the one kept
  std::map<std::string, NodePtr> kept;
  size_t merged = 0;
  auto redirect = [&](NodeEntry* e) {
    auto it = same_as.find(e->node.get());
    if (it != same_as.end()) e->node = it->second;
  };
  for (const auto& n : topo) {
    for (auto& e : n->inputs) redirect(&e);  // inputs come first: theirs are settled
    if (!Mergeable(*n)) continue;
    auto ins = kept.emplace(Key(*n), n);
    if (!ins.second) {
      same_as[n.get()] = ins.first->second;
      ++merged;
    }
  }
  for (auto& h : *heads) redirect(&h);
  // two outputs that became one entry: the later ones read it through a copy, so each output
  // keeps an array of its own (MXNet does the same)
  std::map<std::pair<const Node*, uint32_t>, int> seen;
  for (auto& h : *heads) {
    if (seen[{h.node.get(), h.index}]++ == 0 || h.node->is_variable()) continue;
    h = NodeEntry{CreateOpNode(Op::Get("_copy"), h.node->attrs.name + "_copy", {}, {h}), 0, 0};
  }
  return merged;
}

}  // namespace symnet
