/*! \brief Symbol construction (MXNet calling conventions), listing, internals and attributes. */
#include "symnet/symbol.h"

#include <charconv>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "symbol_util.h"
#include "symnet/graph.h"
#include "symnet/op_attr_types.h"

namespace symnet {

// ---------------------------------------------------------------------------------------------
// helpers shared with the other symbol_*.cc files

bool IsDunderKey(const std::string& key) {
  return key.size() > 4 && key.compare(0, 2, "__") == 0 &&
         key.compare(key.size() - 2, 2, "__") == 0;
}

std::string DunderKey(const std::string& key) { return IsDunderKey(key) ? key : "__" + key + "__"; }

std::string FormatScalar(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  // Python prints floats with a decimal point ("2.0"); MXNet JSON written from Python does too
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

Shape ParseVariableShape(const std::string& text) {
  Shape s = Shape::FromString(text);
  // MXNet 1.x (without numpy semantics) writes 0 for an unknown dimension
  for (auto& d : s)
    if (d == 0) d = -1;
  return s;
}

// ---------------------------------------------------------------------------------------------

namespace {
std::mutex g_name_mutex;
std::unordered_map<std::string, int> g_name_counter;

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void SplitVariables(const std::vector<NodeEntry>& outputs, std::vector<NodePtr>* args,
                    std::vector<NodePtr>* aux) {
  IndexedGraph g(outputs);
  for (uint32_t nid : g.input_nodes()) {
    if (g.is_mutable_input(nid)) {
      if (aux) aux->push_back(g[nid].node);
    } else if (args) {
      args->push_back(g[nid].node);
    }
  }
}
}  // namespace

std::string NameManager::Get(const std::string& name, const std::string& hint) {
  if (!name.empty()) return name;
  const std::string key = Lower(hint);
  std::lock_guard<std::mutex> lock(g_name_mutex);
  const int id = g_name_counter[key]++;
  return key + std::to_string(id);
}

void NameManager::Reset() {
  std::lock_guard<std::mutex> lock(g_name_mutex);
  g_name_counter.clear();
}

Symbol Symbol::Variable(const std::string& name, const AttrMap& attrs) {
  SYMNET_CHECK(!name.empty()) << "a variable needs a name";
  NodePtr n = Node::Variable(name);
  for (const auto& kv : attrs) n->attrs.dict[DunderKey(kv.first)] = kv.second;
  return Symbol({NodeEntry{n, 0, 0}});
}

Symbol Symbol::Variable(const std::string& name, const Shape& shape) {
  return Variable(name, {{"__shape__", shape.ToString()}});
}

Symbol Symbol::Create(const std::string& op_name, const std::string& name, const AttrMap& params,
                      const std::vector<Symbol>& args,
                      const std::map<std::string, Symbol>& kwargs) {
  const Op* op = Op::Get(op_name);
  AttrMap dict = params;
  if (!op->key_var_num_args.empty() && !dict.count(op->key_var_num_args)) {
    dict[op->key_var_num_args] = std::to_string(args.size());
  }
  const std::string node_name = NameManager::Get(name, op_name);
  NodePtr n = CreateOpNode(op, node_name, dict, {});
  const std::vector<std::string> in_names = InputNames(*n);
  const size_t num_in = in_names.size();
  SYMNET_CHECK(args.size() <= num_in)
      << "operator " << op->name << " (node '" << node_name << "') takes " << num_in
      << " inputs but " << args.size() << " were given";
  std::vector<NodeEntry> inputs(num_in);
  auto single = [&](const Symbol& s, const std::string& what) {
    SYMNET_CHECK_EQ(s.outputs.size(), 1u)
        << "operator " << op->name << " (node '" << node_name << "'): input '" << what
        << "' is a group of " << s.outputs.size() << " outputs; pass one output";
    return s.outputs[0];
  };
  for (size_t i = 0; i < args.size(); ++i) inputs[i] = single(args[i], in_names[i]);
  // MXNet 1.9.1 (nnvm's Compose) matches keyword inputs only while inputs are missing: an op
  // without inputs drops them unread (sym.random.randn(data=x) is a plain _random_normal)
  const bool drop_kwargs = num_in == 0;
  for (const auto& kv : drop_kwargs ? std::map<std::string, Symbol>() : kwargs) {
    size_t idx = num_in;
    for (size_t i = 0; i < num_in; ++i)
      if (in_names[i] == kv.first) idx = i;
    if (idx == num_in) {
      std::string accepted;
      for (const auto& nm : in_names) accepted += (accepted.empty() ? "" : ", ") + nm;
      SYMNET_THROW << "operator " << op->name << " (node '" << node_name
                   << "') has no input named '" << kv.first << "'; its inputs are: " << accepted;
    }
    SYMNET_CHECK(!inputs[idx].node) << "operator " << op->name << " (node '" << node_name
                                    << "'): input '" << kv.first << "' given twice";
    inputs[idx] = single(kv.second, kv.first);
  }
  for (size_t i = 0; i < num_in; ++i) {
    if (inputs[i].node) continue;
    NodePtr v = Node::Variable(node_name + "_" + in_names[i]);
    v->attrs.dict = n->attrs.dict;  // MXNet gives an auto-created input its op's parameters
    inputs[i] = NodeEntry{v, 0, 0};
  }
  if (auto* f = op->attr<FInputVarAttrs>("FInputVarAttrs")) {
    for (uint32_t i = 0; i < num_in; ++i) {
      if (!inputs[i].node->is_variable()) continue;
      for (const auto& kv : (*f)(n->attrs, i))
        inputs[i].node->attrs.dict.emplace(kv.first, kv.second);
    }
  }
  n->inputs = std::move(inputs);
  std::vector<NodeEntry> outs;
  const uint32_t nvis = NumVisibleOutputs(*n);
  for (uint32_t i = 0; i < nvis; ++i) outs.push_back(NodeEntry{n, i, 0});
  return Symbol(outs);
}

Symbol Symbol::Group(const std::vector<Symbol>& symbols) {
  Symbol g;
  for (const auto& s : symbols)
    g.outputs.insert(g.outputs.end(), s.outputs.begin(), s.outputs.end());
  return g;
}

std::vector<NodePtr> Symbol::ArgumentNodes() const {
  std::vector<NodePtr> args;
  SplitVariables(outputs, &args, nullptr);
  return args;
}

std::vector<NodePtr> Symbol::AuxiliaryNodes() const {
  std::vector<NodePtr> aux;
  SplitVariables(outputs, nullptr, &aux);
  return aux;
}

std::vector<std::string> Symbol::ListArguments() const {
  std::vector<std::string> names;
  for (const auto& n : ArgumentNodes()) names.push_back(n->attrs.name);
  return names;
}

std::vector<std::string> Symbol::ListAuxiliaryStates() const {
  std::vector<std::string> names;
  for (const auto& n : AuxiliaryNodes()) names.push_back(n->attrs.name);
  return names;
}

std::vector<std::string> Symbol::ListInputs() const {
  std::vector<std::string> names;
  DFSVisit(outputs, [&](const NodePtr& n) {
    if (n->is_variable()) names.push_back(n->attrs.name);
  });
  return names;
}

std::vector<std::string> Symbol::ListOutputs() const {
  std::vector<std::string> names;
  for (const auto& e : outputs) names.push_back(OutputName(e));
  return names;
}

Symbol Symbol::GetInternals() const {
  Symbol s;
  // as MXNet: the outputs a user sees, not the hidden ones (BatchNorm's saved mean and variance)
  DFSVisit(outputs, [&](const NodePtr& n) {
    const uint32_t nvis = n->is_variable() ? 1 : NumVisibleOutputs(*n);
    for (uint32_t i = 0; i < nvis; ++i) s.outputs.push_back(NodeEntry{n, i, 0});
  });
  return s;
}

Symbol Symbol::GetChildren() const {
  Symbol s;
  std::unordered_set<const Node*> seen;  // a node with several outputs here lists its inputs once
  for (const auto& e : outputs)
    if (seen.insert(e.node.get()).second)
      s.outputs.insert(s.outputs.end(), e.node->inputs.begin(), e.node->inputs.end());
  return s;
}

Symbol Symbol::operator[](size_t i) const {
  SYMNET_CHECK_LT(i, outputs.size()) << "output index out of range";
  return Symbol({outputs[i]});
}

Symbol Symbol::operator[](const std::string& name) const {
  const auto names = ListOutputs();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return (*this)[i];
  std::string all;
  for (size_t i = 0; i < names.size() && i < 40; ++i) all += (i ? ", " : "") + names[i];
  SYMNET_THROW << "no output named '" << name << "'; outputs are: " << all
               << (names.size() > 40 ? ", ..." : "");
}

std::string Symbol::name() const {
  SYMNET_CHECK_EQ(outputs.size(), 1u) << "a grouped symbol has no single name";
  return outputs[0].node->attrs.name;
}

std::string Symbol::Attr(const std::string& key) const {
  SYMNET_CHECK_EQ(outputs.size(), 1u) << "attributes belong to single-output symbols";
  const auto& dict = outputs[0].node->attrs.dict;
  auto it = dict.find(key);
  if (it == dict.end()) it = dict.find(DunderKey(key));
  return it == dict.end() ? std::string() : it->second;
}

void Symbol::SetAttr(const AttrMap& attrs) {
  for (const auto& e : outputs)
    for (const auto& kv : attrs) e.node->attrs.dict[DunderKey(kv.first)] = kv.second;
}

std::map<std::string, AttrMap> Symbol::AttrDict() const {
  std::map<std::string, AttrMap> out;
  DFSVisit(outputs, [&](const NodePtr& n) {
    if (!n->attrs.dict.empty()) out[n->attrs.name] = n->attrs.dict;
  });
  return out;
}

Symbol Symbol::Copy() const {
  std::unordered_map<const Node*, NodePtr> map;
  DFSVisit(outputs, [&](const NodePtr& n) {
    NodePtr c = Node::Create();
    c->attrs = n->attrs;
    for (const auto& e : n->inputs)
      c->inputs.push_back(NodeEntry{map.at(e.node.get()), e.index, e.version});
    for (const auto& d : n->control_deps) c->control_deps.push_back(map.at(d.get()));
    map[n.get()] = c;
  });
  Symbol s;
  for (const auto& e : outputs)
    s.outputs.push_back(NodeEntry{map.at(e.node.get()), e.index, e.version});
  return s;
}

// ---------------------------------------------------------------------------------------------
// arithmetic

namespace {
Symbol Binary(const char* op, const Symbol& a, const Symbol& b) {
  return Symbol::Create(op, "", {}, {a, b});
}
Symbol Scalar(const char* op, const Symbol& a, double s) {
  return Symbol::Create(op, "", {{"scalar", FormatScalar(s)}}, {a});
}
}  // namespace

Symbol operator+(const Symbol& a, const Symbol& b) { return Binary("_Plus", a, b); }
Symbol operator-(const Symbol& a, const Symbol& b) { return Binary("_Minus", a, b); }
Symbol operator*(const Symbol& a, const Symbol& b) { return Binary("_Mul", a, b); }
Symbol operator/(const Symbol& a, const Symbol& b) { return Binary("_Div", a, b); }
Symbol operator+(const Symbol& a, double s) { return Scalar("_PlusScalar", a, s); }
Symbol operator-(const Symbol& a, double s) { return Scalar("_MinusScalar", a, s); }
Symbol operator*(const Symbol& a, double s) { return Scalar("_MulScalar", a, s); }
Symbol operator/(const Symbol& a, double s) { return Scalar("_DivScalar", a, s); }
Symbol operator+(double s, const Symbol& a) { return Scalar("_PlusScalar", a, s); }
Symbol operator-(double s, const Symbol& a) { return Scalar("_RMinusScalar", a, s); }
Symbol operator*(double s, const Symbol& a) { return Scalar("_MulScalar", a, s); }
Symbol operator/(double s, const Symbol& a) { return Scalar("_RDivScalar", a, s); }
Symbol operator-(const Symbol& a) { return Scalar("_MulScalar", a, -1.0); }

}  // namespace symnet
