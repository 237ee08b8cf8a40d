/*! \brief Reverse-mode differentiation of a graph using each op's FGradient. */
#include <unordered_map>
#include <unordered_set>

#include "symnet/pass.h"

namespace symnet {

namespace {

NodeEntry MakeOp(const char* op_name, const std::string& name, std::vector<NodeEntry> inputs,
                 const std::map<std::string, std::string>& dict = {}) {
  NodePtr n = CreateOpNode(Op::Get(op_name), name, dict, std::move(inputs));
  return NodeEntry{n, 0, 0};
}

/*! \brief Sums gradient contributions; one contribution is returned as is. */
NodeEntry Aggregate(const std::vector<NodeEntry>& parts, const std::string& name) {
  if (parts.size() == 1) return parts[0];
  return MakeOp("add_n", name + "_sum_grad", parts, {{"num_args", std::to_string(parts.size())}});
}

}  // namespace

std::vector<NodeEntry> Gradient(const std::vector<NodeEntry>& ys, const std::vector<NodePtr>& xs,
                                const std::vector<NodeEntry>& ys_grads) {
  SYMNET_CHECK_EQ(ys.size(), ys_grads.size());
  std::vector<NodePtr> topo;
  DFSVisit(ys, [&](const NodePtr& n) { topo.push_back(n); });

  // Only nodes that depend on some x need gradients.
  std::unordered_set<const Node*> depends;
  for (const auto& x : xs) depends.insert(x.get());
  for (const auto& n : topo) {
    for (const auto& e : n->inputs)
      if (depends.count(e.node.get())) {
        depends.insert(n.get());
        break;
      }
  }

  std::unordered_map<NodeEntry, std::vector<NodeEntry>, NodeEntryHash> contrib;
  for (size_t i = 0; i < ys.size(); ++i) contrib[ys[i]].push_back(ys_grads[i]);

  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const NodePtr& n = *it;
    if (n->is_variable() || !depends.count(n.get())) continue;
    const uint32_t nout = n->num_outputs();
    std::vector<NodeEntry> ograds(nout);
    bool any = false;
    for (uint32_t i = 0; i < nout; ++i) {
      auto c = contrib.find(NodeEntry{n, i, 0});
      if (c != contrib.end() && !c->second.empty()) {
        ograds[i] = Aggregate(c->second, n->attrs.name + "_out" + std::to_string(i));
        any = true;
      }
    }
    // a node none of whose outputs receive a gradient contributes nothing (e.g. a dead branch)
    if (!any && !n->op()->attr<TIsLoss>("TIsLoss")) continue;
    for (uint32_t i = 0; i < nout; ++i) {
      if (!ograds[i].node) {
        ograds[i] = MakeOp("zeros_like", n->attrs.name + "_zero_ograd" + std::to_string(i),
                           {NodeEntry{n, i, 0}});
      }
    }
    const auto* fgrad = n->op()->attr<FGradient>("FGradient");
    SYMNET_CHECK(fgrad != nullptr) << "operator " << n->op()->name << " (node '" << n->attrs.name
                                   << "') has no gradient; it cannot be trained through. Use "
                                      "BlockGrad on its input or grad_req='null'";
    std::vector<NodeEntry> igrads = (*fgrad)(n, ograds);
    SYMNET_CHECK_EQ(igrads.size(), n->inputs.size())
        << "gradient of operator " << n->op()->name << " returned a wrong number of entries";
    for (size_t i = 0; i < igrads.size(); ++i) {
      if (!igrads[i].node) continue;  // no gradient flows to this input (labels, BlockGrad)
      if (!depends.count(n->inputs[i].node.get())) continue;
      contrib[n->inputs[i]].push_back(igrads[i]);
    }
  }

  std::vector<NodeEntry> out;
  for (const auto& x : xs) {
    NodeEntry xe{x, 0, 0};
    auto c = contrib.find(xe);
    if (c == contrib.end() || c->second.empty()) {
      out.push_back(MakeOp("zeros_like", x->attrs.name + "_zero_grad", {xe}));
    } else {
      out.push_back(Aggregate(c->second, x->attrs.name));
    }
  }
  // The caller writes each gradient into its own array (possibly accumulating with kAddTo), so
  // a returned entry must come from an op, appear once, and be read by no other node.
  std::unordered_set<NodeEntry, NodeEntryHash> consumed;
  DFSVisit(out, [&](const NodePtr& n) {
    for (const auto& e : n->inputs) consumed.insert(e);
  });
  std::unordered_set<NodeEntry, NodeEntryHash> used;
  for (size_t i = 0; i < out.size(); ++i) {
    NodeEntry& g = out[i];
    if (g.node->is_variable() || used.count(g) || consumed.count(g)) {
      g = MakeOp("_copy", xs[i]->attrs.name + "_grad_copy", {g});
    }
    used.insert(g);
  }
  return out;
}

}  // namespace symnet
