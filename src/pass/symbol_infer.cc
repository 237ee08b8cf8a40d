/*! \brief Symbol::InferShape / InferType over the symbol's graph. */
#include "symnet/pass.h"
#include "symnet/symbol.h"

namespace symnet {

namespace {

template <typename T, typename ParseAttr, typename Infer, typename Known>
bool InferForSymbol(const Symbol& sym, const std::map<std::string, T>& known, const char* what,
                    ParseAttr parse_attr, Infer infer, Known is_known, T unknown,
                    std::vector<T>* arg_out, std::vector<T>* out_out, std::vector<T>* aux_out,
                    bool partial) {
  IndexedGraph g(sym.outputs);
  std::vector<T> values(g.num_entries(), unknown);
  size_t matched = 0;
  for (uint32_t nid : g.input_nodes()) {
    const Node& n = g.node(nid);
    auto it = known.find(n.attrs.name);
    if (it != known.end()) {
      values[g.entry_id(nid, 0)] = it->second;
      ++matched;
    } else {
      parse_attr(n, &values[g.entry_id(nid, 0)]);
    }
  }
  if (matched != known.size()) {
    for (const auto& kv : known) {
      bool found = false;
      for (uint32_t nid : g.input_nodes()) found = found || g.node(nid).attrs.name == kv.first;
      SYMNET_CHECK(found) << "infer_" << what << ": '" << kv.first
                          << "' is not an argument or auxiliary state of this symbol";
    }
  }
  infer(g, &values);
  bool complete = true;
  std::string missing;
  if (arg_out) arg_out->clear();
  if (aux_out) aux_out->clear();
  if (out_out) out_out->clear();
  for (uint32_t nid : g.input_nodes()) {
    const T& v = values[g.entry_id(nid, 0)];
    if (!is_known(v)) {
      complete = false;
      missing += (missing.empty() ? "" : ", ") + g.node(nid).attrs.name;
    }
    auto* dst = g.is_mutable_input(nid) ? aux_out : arg_out;
    if (dst) dst->push_back(v);
  }
  for (const auto& e : g.outputs()) {
    const T& v = values[g.entry_id(e)];
    complete = complete && is_known(v);
    if (out_out) out_out->push_back(v);
  }
  SYMNET_CHECK(partial || complete)
      << "cannot infer the " << what << " of every input from those "
      << "given; still unknown: " << (missing.empty() ? "(outputs)" : missing);
  return complete;
}

}  // namespace

bool Symbol::InferShape(const std::map<std::string, Shape>& known, std::vector<Shape>* arg_shapes,
                        std::vector<Shape>* out_shapes, std::vector<Shape>* aux_shapes,
                        bool partial) const {
  return InferForSymbol<Shape>(
      *this, known, "shape",
      [](const Node& n, Shape* s) {
        auto it = n.attrs.dict.find("__shape__");
        if (it != n.attrs.dict.end()) *s = ParseVariableShape(it->second);
      },
      [](const IndexedGraph& g, std::vector<Shape>* v) { InferShapes(g, v); },
      [](const Shape& s) { return s.is_known(); }, Shape(), arg_shapes, out_shapes, aux_shapes,
      partial);
}

bool Symbol::InferType(const std::map<std::string, DType>& known, std::vector<DType>* arg_types,
                       std::vector<DType>* out_types, std::vector<DType>* aux_types,
                       bool partial) const {
  return InferForSymbol<DType>(
      *this, known, "type",
      [](const Node& n, DType* t) {
        auto it = n.attrs.dict.find("__dtype__");
        if (it != n.attrs.dict.end()) *t = DTypeFromName(it->second);
      },
      [](const IndexedGraph& g, std::vector<DType>* v) { InferTypes(g, v); },
      [](DType t) { return t != DType::kUnknown; }, DType::kUnknown, arg_types, out_types,
      aux_types, partial);
}

}  // namespace symnet
