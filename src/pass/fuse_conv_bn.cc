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

#include "src/pass/fusion_graph.h"

namespace symnet {

using fusion::Is;
using fusion::OpParams;

namespace {

std::string Attr(const NodeAttrs& a, const char* key, const char* def) {
  auto it = a.dict.find(key);
  return it == a.dict.end() ? def : it->second;
}

}  // namespace

size_t FuseConvBatchNorm(std::vector<NodeEntry>* heads) {
  const fusion::Readers readers(*heads);
  auto used = [&](const NodePtr& n, uint32_t i) { return readers.Used(n, i); };
  std::unordered_map<const Node*, NodeEntry> replaced;  // last node of a chain -> fused output
  std::unordered_set<const Node*> absorbed;             // adds and ReLUs already in a chain
  for (const auto& bn : readers.topo) {
    if (!Is(*bn, "BatchNorm") || Attr(bn->attrs, "axis", "1") != "1") continue;
    const NodePtr conv = bn->inputs[0].node;
    if (bn->inputs[0].index != 0 || !Is(*conv, "Convolution") || used(conv, 0) != 1) continue;
    const std::string layout = Attr(conv->attrs, "layout", "None");
    if (layout != "None" && layout.compare(0, 3, "NCH") != 0 && layout != "NCW") continue;
    if (used(bn, 1) || used(bn, 2)) continue;  // batch statistics read elsewhere
    Node* last = bn.get();
    bool relu = false;
    NodeEntry residual;
    NodePtr user = readers.SoleUser(bn);
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
        user = readers.SoleUser(user);
      } else {
        user = nullptr;
      }
    }
    if (user && Is(*user, "Activation") && fusion::IsReLU(*user)) {
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
    absorbed.insert(last);
    if (residual.node) absorbed.insert(readers.SoleUser(bn).get());
  }
  return fusion::Redirect(readers.topo, replaced, heads);
}

}  // namespace symnet
