/*!
 * \brief RemoveAmpCast: the AMP graph with its casts taken out, which is what MXNet writes when a
 *  converted symbol is saved (Symbol.save / tojson with remove_amp_cast=True): the file then
 *  describes the float32 network and loads anywhere, with the parameters in float32.
 */
#include <functional>
#include <unordered_map>

#include "symnet/amp.h"

namespace symnet {
namespace amp {

Symbol RemoveAmpCast(const Symbol& sym) {
  // copy every node except the casts; an input read from a cast reads the cast's input instead
  // (amp_multicast's output i is its input i)
  std::unordered_map<const Node*, NodePtr> copies;
  std::function<NodeEntry(const NodeEntry&)> resolve = [&](const NodeEntry& e) -> NodeEntry {
    const Node* n = e.node.get();
    if (!n->is_variable() && (n->op()->name == "amp_cast" || n->op()->name == "amp_multicast")) {
      const NodeEntry& src = n->op()->name == "amp_cast" ? n->inputs.at(0) : n->inputs.at(e.index);
      return resolve(src);
    }
    return NodeEntry{copies.at(n), e.index, e.version};
  };
  DFSVisit(sym.outputs, [&](const NodePtr& n) {
    if (!n->is_variable() && (n->op()->name == "amp_cast" || n->op()->name == "amp_multicast"))
      return;
    NodePtr c = Node::Create();
    c->attrs = n->attrs;
    for (const auto& e : n->inputs) c->inputs.push_back(resolve(e));
    for (const auto& d : n->control_deps) {
      auto it = copies.find(d.get());
      if (it != copies.end()) c->control_deps.push_back(it->second);
    }
    copies[n.get()] = c;
  });
  Symbol out;
  for (const auto& e : sym.outputs) out.outputs.push_back(resolve(e));
  return out;
}

}  // namespace amp
}  // namespace symnet
