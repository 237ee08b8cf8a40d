/*! \brief Node creation with attribute parsing and clear errors; graph traversal. */
#include "symnet/node.h"

#include <dmlc/parameter.h>

#include <unordered_set>

#include "symnet/op_attr_types.h"

namespace symnet {

NodePtr Node::Variable(const std::string& name) {
  NodePtr n = Create();
  n->attrs.name = name;
  return n;
}

bool IsUserAttr(const std::string& key) {
  return key.size() > 4 && key.compare(0, 2, "__") == 0 &&
         key.compare(key.size() - 2, 2, "__") == 0;
}

namespace {

std::string AcceptedParams(const Op* op) {
  if (op->params.empty()) return "none (this op takes no parameters)";
  std::string s;
  for (const auto& p : op->params) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}
}  // namespace

void ParseNodeAttrs(NodeAttrs* attrs) {
  const Op* op = attrs->op;
  // built only for a message: every imperative call parses, and most parse fine
  auto where = [&] { return "operator " + op->name + " (node '" + attrs->name + "')"; };
  // unknown keys first: this gives one precise message instead of dmlc's whole doc dump
  const TAcceptAnyParams* any = op->attr<TAcceptAnyParams>("TAcceptAnyParams");
  // MXNet 1.9.1 checks keys only against an op's parameter struct: an op without one
  // (broadcast_maximum, sin, where, ...) takes any key and ignores it (mx.nd.broadcast_maximum(a,
  // b, axis=1) runs), so one without parameters here does too
  const bool open = (any && *any) || op->params.empty();
  for (const auto& kv : attrs->dict) {
    if (IsUserAttr(kv.first) || open) continue;
    bool known = false;
    for (const auto& p : op->params) known = known || p.name == kv.first;
    SYMNET_CHECK(known) << where() << ": unknown attribute '" << kv.first
                        << "'; accepted: " << AcceptedParams(op);
  }
  if (!op->attr_parser) return;
  try {
    op->attr_parser(attrs);
  } catch (const dmlc::ParamError& e) {
    SYMNET_THROW << where() << ": " << e.what()
                 << (any && *any ? std::string() : "; accepted: " + AcceptedParams(op));
  }
}

NodePtr CreateOpNode(const Op* op, const std::string& name,
                     const std::map<std::string, std::string>& dict,
                     std::vector<NodeEntry> inputs) {
  NodePtr n = Node::Create();
  n->attrs.op = op;
  n->attrs.name = name;
  n->attrs.dict = dict;
  ParseNodeAttrs(&n->attrs);
  n->inputs = std::move(inputs);
  return n;
}

void DFSVisit(const std::vector<NodeEntry>& heads,
              const std::function<void(const NodePtr&)>& fvisit) {
  std::unordered_set<const Node*> visited;
  // iterative post-order DFS: deep graphs (ResNet-152 backward) must not overflow the stack
  std::vector<std::pair<NodePtr, size_t>> stack;
  auto push = [&](const NodePtr& n) {
    if (n && visited.insert(n.get()).second) stack.emplace_back(n, 0);
  };
  for (const auto& h : heads) {
    push(h.node);
    while (!stack.empty()) {
      auto& top = stack.back();
      const Node* n = top.first.get();
      const size_t num_in = n->inputs.size();
      const size_t total = num_in + n->control_deps.size();
      if (top.second < total) {
        const size_t i = top.second++;
        push(i < num_in ? n->inputs[i].node : n->control_deps[i - num_in]);
      } else {
        NodePtr done = top.first;
        stack.pop_back();
        fvisit(done);
      }
    }
  }
}

std::vector<std::string> InputNames(const Node& n) {
  const uint32_t num = n.num_inputs();
  if (auto* f = n.op()->attr<FListInputNames>("FListInputNames")) {
    auto names = (*f)(n.attrs);
    SYMNET_CHECK_EQ(names.size(), num)
        << "op " << n.op()->name << " lists a wrong number of inputs";
    return names;
  }
  if (num == 1 && n.op()->key_var_num_args.empty()) return {"data"};
  std::vector<std::string> names;
  for (uint32_t i = 0; i < num; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

std::string OutputName(const NodeEntry& e) {
  const Node& n = *e.node;
  if (n.is_variable()) return n.attrs.name;
  const uint32_t num = n.num_outputs();
  if (auto* f = n.op()->attr<FListOutputNames>("FListOutputNames")) {
    auto names = (*f)(n.attrs);
    if (e.index < names.size()) return n.attrs.name + "_" + names[e.index];
  }
  if (num == 1) return n.attrs.name + "_output";
  return n.attrs.name + "_output" + std::to_string(e.index);
}

uint32_t NumVisibleOutputs(const Node& n) {
  if (n.is_variable()) return 1;
  if (auto* f = n.op()->attr<FNumVisibleOutputs>("FNumVisibleOutputs")) return (*f)(n.attrs);
  return n.num_outputs();
}

}  // namespace symnet
