/*! \brief IndexedGraph: a graph flattened into topological arrays, the form passes work on. */
#ifndef SYMNET_GRAPH_H_
#define SYMNET_GRAPH_H_

#include <unordered_map>
#include <vector>

#include "symnet/node.h"

namespace symnet {

/*!
 * \brief Nodes in topological order (inputs first) with dense ids for nodes and for entries
 *  (node outputs). Entry id of (node n, output i) is entry_id(n, i) = row_ptr[n] + i.
 */
class IndexedGraph {
 public:
  struct Entry {
    uint32_t node_id;
    uint32_t index;
  };
  struct NodeInfo {
    NodePtr node;
    std::vector<Entry> inputs;
    std::vector<uint32_t> control_deps;
  };

  /*! \brief Indexes every node reachable from `outputs`, in DFS post-order of the outputs list. */
  explicit IndexedGraph(const std::vector<NodeEntry>& outputs);

  size_t num_nodes() const { return nodes_.size(); }
  size_t num_entries() const { return row_ptr_.back(); }
  const NodeInfo& operator[](uint32_t nid) const { return nodes_[nid]; }
  const Node& node(uint32_t nid) const { return *nodes_[nid].node; }
  uint32_t node_id(const Node* n) const { return node_ids_.at(n); }
  bool has_node(const Node* n) const { return node_ids_.count(n) != 0; }
  uint32_t entry_id(uint32_t nid, uint32_t index) const { return row_ptr_[nid] + index; }
  uint32_t entry_id(const Entry& e) const { return entry_id(e.node_id, e.index); }
  uint32_t entry_id(const NodeEntry& e) const { return entry_id(node_id(e.node.get()), e.index); }
  /*! \brief Variable nodes, in topological order. */
  const std::vector<uint32_t>& input_nodes() const { return input_nodes_; }
  /*! \brief Variables some op mutates (auxiliary states), in topological order. */
  const std::vector<uint32_t>& mutable_input_nodes() const { return mutable_input_nodes_; }
  bool is_mutable_input(uint32_t nid) const;
  const std::vector<Entry>& outputs() const { return outputs_; }

 private:
  std::vector<NodeInfo> nodes_;
  std::vector<uint32_t> row_ptr_;
  std::unordered_map<const Node*, uint32_t> node_ids_;
  std::vector<uint32_t> input_nodes_;
  std::vector<uint32_t> mutable_input_nodes_;
  std::vector<Entry> outputs_;
};

}  // namespace symnet

#endif  // SYMNET_GRAPH_H_
