/*! \brief What the fusion passes share (see fusion_graph.h). */
#include "src/pass/fusion_graph.h"

namespace symnet {
namespace fusion {

bool IsReLU(const Node& n, const char* activation_op, const char* relu_op) {
  if (Is(n, relu_op)) return true;
  if (!Is(n, activation_op)) return false;
  auto it = n.attrs.dict.find("act_type");
  return it != n.attrs.dict.end() && it->second == "relu";
}

std::map<std::string, std::string> OpParams(const NodeAttrs& attrs) {
  std::map<std::string, std::string> d;
  for (const auto& kv : attrs.dict)
    if (!IsUserAttr(kv.first)) d.insert(kv);
  return d;
}

Readers::Readers(const std::vector<NodeEntry>& heads) {
  DFSVisit(heads, [&](const NodePtr& n) { topo.push_back(n); });
  for (const auto& n : topo)
    for (const auto& e : n->inputs) {
      ++uses_[e];
      if (e.index == 0) user_[e.node.get()] = n;
    }
  for (const auto& e : heads) uses_[e] += 1000;
}

int Readers::Used(const NodePtr& n, uint32_t i) const {
  auto it = uses_.find(NodeEntry{n, i, 0});
  return it == uses_.end() ? 0 : it->second;
}

NodePtr Readers::SoleUser(const NodePtr& n) const {
  return Used(n, 0) == 1 ? user_.at(n.get()) : nullptr;
}

size_t Redirect(const std::vector<NodePtr>& topo,
                const std::unordered_map<const Node*, NodeEntry>& replaced,
                std::vector<NodeEntry>* heads) {
  if (replaced.empty()) return 0;
  auto redirect = [&](NodeEntry* e) {
    if (e->index != 0) return;
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

}  // namespace fusion
}  // namespace symnet
