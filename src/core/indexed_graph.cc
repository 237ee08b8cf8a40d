/*! \brief Builds the IndexedGraph arrays. */
#include <algorithm>
#include <unordered_set>

#include "symnet/graph.h"
#include "symnet/op_attr_types.h"

namespace symnet {

IndexedGraph::IndexedGraph(const std::vector<NodeEntry>& outputs) {
  row_ptr_.push_back(0);
  std::unordered_set<uint32_t> mutated;
  DFSVisit(outputs, [&](const NodePtr& n) {
    const uint32_t nid = static_cast<uint32_t>(nodes_.size());
    node_ids_[n.get()] = nid;
    NodeInfo info;
    info.node = n;
    for (const auto& e : n->inputs) info.inputs.push_back({node_ids_.at(e.node.get()), e.index});
    for (const auto& c : n->control_deps) info.control_deps.push_back(node_ids_.at(c.get()));
    if (n->is_variable()) input_nodes_.push_back(nid);
    if (!n->is_variable()) {
      if (auto* fmut = n->op()->attr<FMutateInputs>("FMutateInputs")) {
        for (uint32_t i : (*fmut)(n->attrs)) {
          SYMNET_CHECK_LT(i, info.inputs.size())
              << "op " << n->op()->name << " mutates input " << i;
          mutated.insert(info.inputs[i].node_id);
        }
      }
    }
    nodes_.push_back(std::move(info));
    row_ptr_.push_back(row_ptr_.back() + n->num_outputs());
  });
  for (uint32_t nid : input_nodes_)
    if (mutated.count(nid)) mutable_input_nodes_.push_back(nid);
  for (const auto& e : outputs) outputs_.push_back({node_ids_.at(e.node.get()), e.index});
}

bool IndexedGraph::is_mutable_input(uint32_t nid) const {
  return std::find(mutable_input_nodes_.begin(), mutable_input_nodes_.end(), nid) !=
         mutable_input_nodes_.end();
}

}  // namespace symnet
