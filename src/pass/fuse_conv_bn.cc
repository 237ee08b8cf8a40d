/*!
 * \brief FuseConvBatchNorm: Convolution -> BatchNorm (-> elemwise_add with a residual) (-> ReLU)
 *  chains into _FusedConvBN nodes, so that inference runs one convolution with BatchNorm folded
 *  into it and the sum and ReLU as its post-ops instead of four passes over the activations
 * (MXNet's oneDNN subgraph backend does the same for inference).
 */
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "symnet/pass.h"

namespace symnet {

namespace {

bool Is(const Node& n, const char* op) { return !n.is_variable() && n.op()->name == op; }

/*! \brief Keys of `attrs.dict` without user attributes ("__x__"). */
std::map<std::string, std::string> OpParams(const NodeAttrs& attrs) {
  std::map<std::string, std::string> d;
  for (const auto& kv : attrs.dict)
    if (!IsUserAttr(kv.first)) d.insert(kv);
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
  std::unordered_map<NodeEntry, int, NodeEntryHash> uses;
  std::unordered_map<const Node*, NodePtr> only_user;  // of output 0
  for (const auto& n : topo)
    for (const auto& e : n->inputs) {
      ++uses[e];
      if (e.index == 0) only_user[e.node.get()] = n;
    }
  for (const auto& e : *heads) uses[e] += 1000;  // an output: keep it
  auto used = [&](const NodePtr& n, uint32_t i) {
    auto it = uses.find(NodeEntry{n, i, 0});
    return it == uses.end() ? 0 : it->second;
  };

  std::unordered_map<const Node*, NodeEntry> replaced;  // last node of a chain -> fused output
  std::vector<NodePtr> made;
  std::unordered_set<const Node*> absorbed;  // adds and ReLUs already in a chain
  for (const auto& bn : topo) {
    if (!Is(*bn, "BatchNorm") || Attr(bn->attrs, "axis", "1") != "1") continue;
    const NodePtr conv = bn->inputs[0].node;
    if (bn->inputs[0].index != 0 || !Is(*conv, "Convolution") || used(conv, 0) != 1) continue;
    const std::string layout = Attr(conv->attrs, "layout", "None");
    if (layout != "None" && layout.compare(0, 3, "NCH") != 0 && layout != "NCW") continue;
    if (used(bn, 1) || used(bn, 2)) continue;  // batch statistics read elsewhere
    Node* last = bn.get();
    bool relu = false;
    NodeEntry residual;
    auto sole_user = [&](const NodePtr& n) {
      return used(n, 0) == 1 ? only_user[n.get()] : nullptr;
    };
    NodePtr user = sole_user(bn);
    // a residual block: conv -> BN -> add -> ReLU. The add goes to the first chain that reaches
    // it (a projection shortcut's BatchNorm reaches the same add); the output may take the
    // residual's buffer, so a residual that the convolution also reads stays apart
    if (user && Is(*user, "elemwise_add") && !absorbed.count(user.get())) {
      const auto& ins = user->inputs;
      const bool first = ins[0].node == bn && ins[0].index == 0;
      const NodeEntry r = ins[first ? 1 : 0];
      const bool read_by_conv = std::any_of(conv->inputs.begin(), conv->inputs.end(),
                                            [&](const NodeEntry& e) { return e == r; });
      if (!(r.node == bn) && !read_by_conv) {
        residual = r;
        last = user.get();
        user = sole_user(user);
      } else {
        user = nullptr;
      }
    }
    if (user && Is(*user, "Activation") && Attr(user->attrs, "act_type", "") == "relu") {
      last = user.get();
      relu = true;
    }
    std::map<std::string, std::string> dict = OpParams(conv->attrs);
    for (const auto& kv : OpParams(bn->attrs)) dict["bn_" + kv.first] = kv.second;
    dict["with_relu"] = relu ? "1" : "0";
    dict["with_sum"] = residual.node ? "1" : "0";
    std::vector<NodeEntry> inputs = conv->inputs;
    inputs.insert(inputs.end(), bn->inputs.begin() + 1, bn->inputs.end());
    if (residual.node) inputs.push_back(residual);
    NodePtr fused = CreateOpNode(Op::Get("_FusedConvBN"), last->attrs.name, dict, inputs);
    replaced[last] = NodeEntry{fused, 0, 0};
    made.push_back(fused);
    absorbed.insert(last);
    if (residual.node) absorbed.insert(only_user[bn.get()].get());
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
