/*!
 * \brief What the fusion passes share: who reads each entry, op tests, and pointing readers at
 *  the fused nodes that replace a chain's last node.
 */
#ifndef SYMNET_SRC_PASS_FUSION_GRAPH_H_
#define SYMNET_SRC_PASS_FUSION_GRAPH_H_

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "symnet/pass.h"

namespace symnet {
namespace fusion {

inline bool Is(const Node& n, const char* op) { return !n.is_variable() && n.op()->name == op; }

/*! \brief A ReLU: `relu_op`, or `activation_op` with act_type relu (forward or backward names). */
bool IsReLU(const Node& n, const char* activation_op = "Activation", const char* relu_op = "relu");

/*! \brief The op's parameters: `attrs.dict` without user attributes ("__x__"). */
std::map<std::string, std::string> OpParams(const NodeAttrs& attrs);

/*! \brief The graph of `heads` in topological order, with how often each entry is read. */
struct Readers {
  std::vector<NodePtr> topo;
  explicit Readers(const std::vector<NodeEntry>& heads);
  /*! \brief Readers of output i of n; a graph output counts as many (the user reads it). */
  int Used(const NodePtr& n, uint32_t i) const;
  /*! \brief The only reader of n's output 0, or null. */
  NodePtr SoleUser(const NodePtr& n) const;

 private:
  std::unordered_map<NodeEntry, int, NodeEntryHash> uses_;
  std::unordered_map<const Node*, NodePtr> user_;  // the last reader of output 0
};

/*!
 * \brief Points every reader of a replaced node's output 0 (in `topo`, the fused nodes' own
 *  inputs, which were copied from nodes that may be replaced too, and the heads) at its
 *  replacement. Returns the number of replacements.
 */
size_t Redirect(const std::vector<NodePtr>& topo,
                const std::unordered_map<const Node*, NodeEntry>& replaced,
                std::vector<NodeEntry>* heads);

}  // namespace fusion
}  // namespace symnet

#endif  // SYMNET_SRC_PASS_FUSION_GRAPH_H_
