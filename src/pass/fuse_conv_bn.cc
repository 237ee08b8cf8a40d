/*!
 * \brief FuseConvBatchNorm: Convolution -> BatchNorm (-> ReLU) chains into _FusedConvBN nodes, so
 *  that inference runs one convolution with BatchNorm folded into it and ReLU as its post-op
 *  instead of three passes over the activations (MXNet's oneDNN subgraph backend does the same
 *  for inference).
 */
#include <map>
#include <unordered_map>

#include "symnet/pass.h"

namespace symnet {

namespace {

struct EntryKey {
  const Node* node;
  uint32_t index;
  bool operator==(const EntryKey& o) const { return node == o.node && index == o.index; }
};
struct EntryKeyHash {
  size_t operator()(const EntryKey& k) const {
    return std::hash<const Node*>()(k.node) * 31 + k.index;
  }
};

bool Is(const Node& n, const char* op) { return !n.is_variable() && n.op()->name == op; }

/*! \brief Keys of `attrs.dict` without user attributes ("__x__"). */
std::map<std::string, std::string> OpParams(const NodeAttrs& attrs) {
  std::map<std::string, std::string> d;
  for (const auto& kv : attrs.dict)
    if (kv.first.size() < 4 || kv.first.compare(0, 2, "__") != 0) d.insert(kv);
  return d;
}

std::string Attr(const NodeAttrs& a, const char* key, const char* def) {
  auto it = a.dict.find(key);
  return it == a.dict.end() ? def : it->second;
}

}  // namespace

size_t FuseConvBatchNorm(std::vector<NodeEntry>* heads) {
  std::vector<NodePtr> topo;
  DFSVisit(*heads, [&](const NodePtr& n) { topo.push_back(n); });
  std::unordered_map<EntryKey, int, EntryKeyHash> uses;
  std::unordered_map<const Node*, const Node*> only_user;  // of output 0
  for (const auto& n : topo)
    for (const auto& e : n->inputs) {
      ++uses[{e.node.get(), e.index}];
      if (e.index == 0) only_user[e.node.get()] = n.get();
    }
  for (const auto& e : *heads) uses[{e.node.get(), e.index}] += 1000;  // an output: keep it
  auto used = [&](const Node* n, uint32_t i) {
    auto it = uses.find({n, i});
    return it == uses.end() ? 0 : it->second;
  };

  std::unordered_map<const Node*, NodeEntry> replaced;  // last node of a chain -> fused output
  std::vector<NodePtr> made;
  for (const auto& bn : topo) {
    if (!Is(*bn, "BatchNorm") || Attr(bn->attrs, "axis", "1") != "1") continue;
    const NodePtr conv = bn->inputs[0].node;
    if (bn->inputs[0].index != 0 || !Is(*conv, "Convolution") || used(conv.get(), 0) != 1) continue;
    const std::string layout = Attr(conv->attrs, "layout", "None");
    if (layout != "None" && layout.compare(0, 3, "NCH") != 0 && layout != "NCW") continue;
    if (used(bn.get(), 1) || used(bn.get(), 2)) continue;  // batch statistics read elsewhere
    Node* last = bn.get();
    bool relu = false;
    if (used(bn.get(), 0) == 1) {
      const Node* user = only_user[bn.get()];
      if (Is(*user, "Activation") && Attr(user->attrs, "act_type", "") == "relu") {
        last = const_cast<Node*>(user);
        relu = true;
      }
    }
    std::map<std::string, std::string> dict = OpParams(conv->attrs);
    for (const auto& kv : OpParams(bn->attrs)) dict["bn_" + kv.first] = kv.second;
    dict["with_relu"] = relu ? "1" : "0";
    std::vector<NodeEntry> inputs = conv->inputs;
    inputs.insert(inputs.end(), bn->inputs.begin() + 1, bn->inputs.end());
    NodePtr fused = CreateOpNode(Op::Get("_FusedConvBN"), last->attrs.name, dict, inputs);
    replaced[last] = NodeEntry{fused, 0, 0};
    made.push_back(fused);
  }
  if (replaced.empty()) return 0;
  auto redirect = [&](NodeEntry* e) {
    if (e->index != 0) return;
    auto it = replaced.find(e->node.get());
    if (it != replaced.end()) *e = it->second;
  };
  // the fused nodes too: their inputs were copied from nodes that may have been fused away
  for (const auto* nodes : {&topo, &made})
    for (const auto& n : *nodes)
      for (auto& e : n->inputs) redirect(&e);
  for (auto& e : *heads) redirect(&e);
  return replaced.size();
}

}  // namespace symnet
