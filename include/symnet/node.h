/*! \brief Graph nodes: Node (an op application or a variable) and NodeEntry (one node output). */
#ifndef SYMNET_NODE_H_
#define SYMNET_NODE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symnet/op.h"

namespace symnet {

struct Node;
using NodePtr = std::shared_ptr<Node>;
struct AutogradRecord;

/*! \brief Output `index` of `node`. `version` is kept for MXNet JSON compatibility (always 0). */
struct NodeEntry {
  NodePtr node;
  uint32_t index = 0;
  uint32_t version = 0;
  bool operator==(const NodeEntry& o) const { return node == o.node && index == o.index; }
};

/*! \brief Hash of a NodeEntry (node and output index), for maps keyed by graph entries. */
struct NodeEntryHash {
  size_t operator()(const NodeEntry& e) const {
    return std::hash<const Node*>()(e.node.get()) * 31 + e.index;
  }
};

/*! \brief Whether `key` is a user attribute ("__x__"), which no op parses. */
bool IsUserAttr(const std::string& key);

/*! \brief A graph node. A variable has attrs.op == nullptr. */
struct Node {
  NodeAttrs attrs;
  std::vector<NodeEntry> inputs;
  /*! \brief Nodes that must run before this one although no data flows (kept from JSON). */
  std::vector<NodePtr> control_deps;
  /*!
   * \brief What autograd saved for a node it recorded (symnet/autograd.h): the values of its
   *  outputs, and for a variable made by attach_grad its gradient buffer. Null in symbols.
   */
  std::shared_ptr<AutogradRecord> ag;

  const Op* op() const { return attrs.op; }
  bool is_variable() const { return attrs.op == nullptr; }
  uint32_t num_outputs() const { return is_variable() ? 1 : attrs.op->NumOutputs(attrs); }
  uint32_t num_inputs() const { return is_variable() ? 0 : attrs.op->NumInputs(attrs); }

  static NodePtr Create() { return std::make_shared<Node>(); }
  /*! \brief A variable node with the given name. */
  static NodePtr Variable(const std::string& name);
};

/*!
 * \brief Creates an op node and parses its attributes, turning a parser error into a
 *  symnet::Error that names the op, the node, the bad key and the accepted parameters.
 */
NodePtr CreateOpNode(const Op* op, const std::string& name,
                     const std::map<std::string, std::string>& dict, std::vector<NodeEntry> inputs);

/*! \brief Runs the op's attribute parser on attrs->dict (with the same error reporting). */
void ParseNodeAttrs(NodeAttrs* attrs);

/*! \brief The names of `n`'s inputs (FListInputNames; else "data" or arg0, arg1, ...). */
std::vector<std::string> InputNames(const Node& n);
/*! \brief The name MXNet gives output `e` ("fc1_output", a variable's own name, ...). */
std::string OutputName(const NodeEntry& e);
/*! \brief How many of `n`'s outputs a user sees (FNumVisibleOutputs; else all of them). */
uint32_t NumVisibleOutputs(const Node& n);

/*! \brief Visits every node reachable from `heads` once, inputs before users (post-order DFS). */
void DFSVisit(const std::vector<NodeEntry>& heads,
              const std::function<void(const NodePtr&)>& fvisit);

}  // namespace symnet

#endif  // SYMNET_NODE_H_
