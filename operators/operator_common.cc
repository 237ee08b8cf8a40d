/*! \brief Shared shape/type rules and gradient-node builders. */
#include "operator_common.h"

#include <istream>
#include <ostream>
#include <sstream>

namespace symnet {
namespace ops {

bool ElemwiseShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape s;
  for (const auto& x : *in) ShapeAssign(&s, x);
  for (const auto& x : *out) ShapeAssign(&s, x);
  if (!s.ndim_known()) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignInShape(in, i, s);
  for (size_t i = 0; i < out->size(); ++i) AssignOutShape(out, i, s);
  return s.is_known();
}

bool ElemwiseType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType x : *in)
    if (x != DType::kUnknown) t = x;
  for (DType x : *out)
    if (t == DType::kUnknown && x != DType::kUnknown) t = x;
  if (t == DType::kUnknown) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignType(in, i, t, true);
  for (size_t i = 0; i < out->size(); ++i) AssignType(out, i, t, false);
  return true;
}

std::vector<std::pair<int, int>> InplaceIn0Out0(const NodeAttrs&) { return {{0, 0}}; }

FLayoutSlots UniformLayout(std::vector<int> inputs, std::vector<int> outputs) {
  return [inputs, outputs](const NodeAttrs&) {
    LayoutSlots s;
    s.groups.emplace_back();
    for (int i : inputs) s.groups[0].emplace_back(false, i);
    for (int o : outputs) s.groups[0].emplace_back(true, o);
    return s;
  };
}

LayoutSlots AllSlotsUniform(const NodeAttrs& attrs) {
  LayoutSlots s;
  s.groups.emplace_back();
  const uint32_t nin = attrs.op->NumInputs(attrs), nout = attrs.op->NumOutputs(attrs);
  for (uint32_t i = 0; i < nin; ++i) s.groups[0].emplace_back(false, static_cast<int>(i));
  for (uint32_t o = 0; o < nout; ++o) s.groups[0].emplace_back(true, static_cast<int>(o));
  return s;
}

std::vector<NodeEntry> MakeGradNode(const char* op_name, const NodePtr& fwd,
                                    std::vector<NodeEntry> inputs,
                                    const std::map<std::string, std::string>& dict,
                                    const char* suffix) {
  NodePtr n =
      CreateOpNode(Op::Get(op_name), fwd->attrs.name + "_" + suffix, dict, std::move(inputs));
  // shape/type inference maps the backward outputs onto the forward inputs through this link
  n->control_deps.push_back(fwd);
  std::vector<NodeEntry> outs;
  for (uint32_t i = 0; i < n->num_outputs(); ++i) outs.push_back(NodeEntry{n, i, 0});
  return outs;
}

std::map<std::string, std::string> ParamsOf(const NodePtr& n) {
  std::map<std::string, std::string> d;
  for (const auto& kv : n->attrs.dict)
    if (kv.first.compare(0, 2, "__") != 0) d.insert(kv);
  return d;
}

FGradient ElemwiseGradUseIn(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    std::vector<NodeEntry> in = ograds;
    in.insert(in.end(), n->inputs.begin(), n->inputs.end());
    return MakeGradNode(backward_op, n, in, ParamsOf(n));
  };
}

FGradient ElemwiseGradUseOut(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    std::vector<NodeEntry> in = ograds;
    for (uint32_t i = 0; i < n->num_outputs(); ++i) in.push_back(NodeEntry{n, i, 0});
    return MakeGradNode(backward_op, n, in, ParamsOf(n));
  };
}

FGradient ElemwiseGradUseInOut(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    std::vector<NodeEntry> in = ograds;
    in.insert(in.end(), n->inputs.begin(), n->inputs.end());
    for (uint32_t i = 0; i < n->num_outputs(); ++i) in.push_back(NodeEntry{n, i, 0});
    return MakeGradNode(backward_op, n, in, ParamsOf(n));
  };
}

FGradient ElemwiseGradUseNone(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    return MakeGradNode(backward_op, n, ograds, ParamsOf(n));
  };
}

std::ostream& operator<<(std::ostream& os, const FloatTuple& t) {
  os << "(";
  for (size_t i = 0; i < t.values.size(); ++i) os << (i ? ", " : "") << t.values[i];
  return os << (t.values.size() == 1 ? ",)" : ")");
}

std::istream& operator>>(std::istream& is, FloatTuple& t) {
  std::string text, chunk;
  while (is >> chunk) text += chunk + " ";
  t.values.clear();
  for (char& c : text)
    if (c == '(' || c == ')' || c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream in(text);
  float v;
  while (in >> v) t.values.push_back(v);
  if (!in.eof()) {
    is.setstate(std::ios::failbit);
  } else {
    is.clear(std::ios::eofbit);
  }
  return is;
}

}  // namespace ops
}  // namespace symnet
