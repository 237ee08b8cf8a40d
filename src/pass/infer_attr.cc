/*! \brief InferShape and InferType: one fixed-point loop over the graph, both directions. */
#include <sstream>

#include "symnet/pass.h"

namespace symnet {

namespace {

struct ShapeTraits {
  using T = Shape;
  static constexpr const char* kWhat = "shape";
  static constexpr const char* kAttr = "FInferShape";
  static bool Known(const Shape& s) { return s.is_known(); }
  static bool Merge(Shape* a, const Shape& b) { return ShapeAssign(a, b); }
  static std::string Str(const Shape& s) { return s.ToString(); }
};

struct TypeTraits {
  using T = DType;
  static constexpr const char* kWhat = "dtype";
  static constexpr const char* kAttr = "FInferType";
  static bool Known(DType t) { return t != DType::kUnknown; }
  static bool Merge(DType* a, DType b) {
    if (b == DType::kUnknown) return true;
    if (*a == DType::kUnknown) {
      *a = b;
      return true;
    }
    return *a == b;
  }
  static std::string Str(DType t) { return DTypeName(t); }
};

/*! \brief Default type rule: every input and output has the same dtype. */
bool SameTypeRule(std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType x : *in) TypeTraits::Merge(&t, x);
  for (DType x : *out) TypeTraits::Merge(&t, x);
  if (t == DType::kUnknown) return false;
  for (size_t i = 0; i < in->size(); ++i)
    if (!TypeTraits::Merge(&(*in)[i], t))
      throw InferError{true, static_cast<int>(i), DTypeName(t), DTypeName((*in)[i])};
  for (size_t i = 0; i < out->size(); ++i)
    if (!TypeTraits::Merge(&(*out)[i], t))
      throw InferError{false, static_cast<int>(i), DTypeName(t), DTypeName((*out)[i])};
  return true;
}

std::string EntryName(const IndexedGraph& g, const IndexedGraph::Entry& e) {
  const Node& n = g.node(e.node_id);
  if (n.is_variable()) return "variable '" + n.attrs.name + "'";
  std::string s = "output " + std::to_string(e.index) + " of node '" + n.attrs.name + "'";
  return s;
}

std::string InputName(const Node& n, int i) {
  if (auto* f = n.op()->attr<FListInputNames>("FListInputNames")) {
    auto names = (*f)(n.attrs);
    if (i < static_cast<int>(names.size())) return names[i];
  }
  return "input " + std::to_string(i);
}

template <typename Tr>
bool InvokeRule(const Node& n, std::vector<typename Tr::T>* in, std::vector<typename Tr::T>* out) {
  using F = std::function<bool(const NodeAttrs&, std::vector<typename Tr::T>*,
                               std::vector<typename Tr::T>*)>;
  if (const F* f = n.op()->attr<F>(Tr::kAttr)) return (*f)(n.attrs, in, out);
  if constexpr (std::is_same<typename Tr::T, DType>::value) {
    return SameTypeRule(in, out);
  } else {
    SYMNET_THROW << "operator " << n.op()->name << " has no shape inference rule";
  }
}

template <typename Tr>
size_t InferAttr(const IndexedGraph& g, std::vector<typename Tr::T>* values) {
  using T = typename Tr::T;
  SYMNET_CHECK_EQ(values->size(), g.num_entries());
  std::vector<T> in, out;
  auto visit = [&](uint32_t nid) -> bool {
    const auto& info = g[nid];
    const Node& n = *info.node;
    if (n.is_variable()) return false;
    in.clear();
    out.clear();
    for (const auto& e : info.inputs) in.push_back((*values)[g.entry_id(e)]);
    const uint32_t nout = n.num_outputs();
    for (uint32_t i = 0; i < nout; ++i) out.push_back((*values)[g.entry_id(nid, i)]);
    const std::string where = "node '" + n.attrs.name + "' (operator " + n.op()->name + ")";
    // A backward node's output i is the gradient of its forward node's input i: same shape and
    // dtype. This is how backward ops get by without rules of their own.
    const bool is_backward = n.op()->attr<TIsBackward>("TIsBackward") && !info.control_deps.empty();
    if (is_backward) {
      const auto& fwd_inputs = g[info.control_deps[0]].inputs;
      for (uint32_t i = 0; i < nout && i < fwd_inputs.size(); ++i)
        Tr::Merge(&out[i], (*values)[g.entry_id(fwd_inputs[i])]);
    }
    try {
      if (!is_backward || n.op()->has_attr(Tr::kAttr)) InvokeRule<Tr>(n, &in, &out);
    } catch (const InferError& e) {
      std::ostringstream msg;
      if (e.is_input) {
        msg << Tr::kWhat << " mismatch in " << where << " for input '" << InputName(n, e.index)
            << "' (" << EntryName(g, info.inputs[e.index]) << "): it has " << Tr::kWhat << " "
            << e.actual << " but the operator expects " << e.expected;
      } else {
        msg << Tr::kWhat << " mismatch in " << where << " for output " << e.index << ": it has "
            << e.actual << " but the operator computes " << e.expected;
      }
      throw Error(msg.str());
    } catch (const Error& e) {
      SYMNET_THROW << "cannot infer the " << Tr::kWhat << " of " << where << ": " << e.what();
    }
    bool changed = false;
    for (size_t i = 0; i < in.size(); ++i) {
      T& slot = (*values)[g.entry_id(info.inputs[i])];
      const T before = slot;
      SYMNET_CHECK(Tr::Merge(&slot, in[i]))
          << Tr::kWhat << " mismatch in " << where << " for input '" << InputName(n, i) << "' ("
          << EntryName(g, info.inputs[i]) << "): it has " << Tr::kWhat << " " << Tr::Str(before)
          << " but the operator expects " << Tr::Str(in[i]);
      changed = changed || !(before == slot);
    }
    for (uint32_t i = 0; i < nout; ++i) {
      T& slot = (*values)[g.entry_id(nid, i)];
      const T before = slot;
      SYMNET_CHECK(Tr::Merge(&slot, out[i]))
          << Tr::kWhat << " mismatch in " << where << " for output " << i << ": it has "
          << Tr::Str(before) << " but the operator computes " << Tr::Str(out[i]);
      changed = changed || !(before == slot);
    }
    return changed;
  };
  const uint32_t num = static_cast<uint32_t>(g.num_nodes());
  for (int iter = 0; iter < 16; ++iter) {
    bool changed = false;
    if (iter % 2 == 0) {
      for (uint32_t nid = 0; nid < num; ++nid) changed = visit(nid) || changed;
    } else {
      for (uint32_t nid = num; nid-- > 0;) changed = visit(nid) || changed;
    }
    if (!changed && iter > 0) break;
  }
  size_t unknown = 0;
  for (const T& v : *values) unknown += Tr::Known(v) ? 0 : 1;
  return unknown;
}

/*!
 * \brief After the fixed point, the ops that have an "FInferShapeFallback" (an FInferShape:
 *  the creation ops, whose 0 dims yield to the graph but are 0 when nothing decides them) settle
 *  their outputs still unknown; then inference runs once more from there.
 */
bool ApplyShapeFallbacks(const IndexedGraph& g, std::vector<Shape>* shapes) {
  bool changed = false;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable()) continue;
    const auto* fallback = n.op()->attr<FInferShape>("FInferShapeFallback");
    if (fallback == nullptr) continue;
    std::vector<Shape> in, out;
    for (const auto& e : g[nid].inputs) in.push_back((*shapes)[g.entry_id(e)]);
    bool open = false;
    for (uint32_t i = 0; i < n.num_outputs(); ++i) {
      out.push_back((*shapes)[g.entry_id(nid, i)]);
      open = open || !out.back().is_known();
    }
    if (!open) continue;
    (*fallback)(n.attrs, &in, &out);  // whatever it settled counts, even if not everything
    for (uint32_t i = 0; i < n.num_outputs(); ++i) {
      Shape& slot = (*shapes)[g.entry_id(nid, i)];
      const Shape before = slot;
      ShapeAssign(&slot, out[i]);
      changed = changed || !(before == slot);
    }
  }
  return changed;
}

}  // namespace

size_t InferShapes(const IndexedGraph& g, std::vector<Shape>* shapes) {
  const size_t unknown = InferAttr<ShapeTraits>(g, shapes);
  if (unknown == 0 || !ApplyShapeFallbacks(g, shapes)) return unknown;
  return InferAttr<ShapeTraits>(g, shapes);
}

size_t InferTypes(const IndexedGraph& g, std::vector<DType>* types) {
  return InferAttr<TypeTraits>(g, types);
}

}  // namespace symnet
