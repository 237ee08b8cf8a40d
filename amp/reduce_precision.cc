/*!
 * \brief ReducePrecision: the AMP graph rewrite. One pass in topological order decides, per op,
 *  the dtype its float inputs must have (from its category), inserts casts (cached per
 *  producer output and dtype), and propagates dtypes with each op's own type rule.
 */
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "symnet/amp.h"
#include "symnet/op_attr_types.h"

namespace symnet {
namespace amp {

namespace {

bool IsCastable(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16;
}

struct EntryKey {
  const Node* node;
  uint32_t index;
  bool operator<(const EntryKey& o) const {
    return node != o.node ? node < o.node : index < o.index;
  }
};

class Rewriter {
 public:
  explicit Rewriter(const AmpOptions& opt) : opt_(opt) {
    Lists(opt.target);  // validates the target dtype
  }

  Symbol Run(const Symbol& sym) {
    std::unordered_map<const Node*, NodePtr> map;
    DFSVisit(sym.outputs, [&](const NodePtr& n) {
      NodePtr c = Node::Create();
      c->attrs = n->attrs;
      for (const auto& d : n->control_deps) c->control_deps.push_back(map.at(d.get()));
      std::vector<NodeEntry> inputs;
      for (const auto& e : n->inputs) inputs.push_back(NodeEntry{map.at(e.node.get()), e.index, 0});
      map[n.get()] = c;
      if (n->is_variable()) {
        auto it = n->attrs.dict.find("__dtype__");
        SetType(NodeEntry{c, 0, 0},
                it == n->attrs.dict.end() ? DType::kUnknown : DTypeFromName(it->second));
        return;
      }
      c->inputs = Rewrite(*c, inputs);
      Propagate(c);
    });
    Symbol out;
    for (const auto& e : sym.outputs) {
      NodeEntry ne{map.at(e.node.get()), e.index, 0};
      const DType t = TypeOf(ne);
      // float outputs come back as float32 (an output of unknown dtype is left as it is)
      if (t == DType::kFloat16 || t == DType::kBFloat16) ne = Cast(ne, DType::kFloat32);
      out.outputs.push_back(ne);
    }
    return out;
  }

  /*! \brief Variables whose every use is a cast to the target: stored in 16 bits instead. */
  std::vector<std::string> StoreParamsIn16Bit(Symbol* sym) {
    std::map<const Node*, std::vector<std::pair<Node*, size_t>>> uses;
    DFSVisit(sym->outputs, [&](const NodePtr& n) {
      for (size_t i = 0; i < n->inputs.size(); ++i)
        uses[n->inputs[i].node.get()].emplace_back(n.get(), i);
    });
    std::set<std::string> data(opt_.data_names.begin(), opt_.data_names.end());
    std::vector<std::string> changed;
    DFSVisit(sym->outputs, [&](const NodePtr& n) {
      if (!n->is_variable() || data.count(n->attrs.name) || !uses.count(n.get())) return;
      bool all_target_casts = true;
      for (const auto& u : uses[n.get()])
        all_target_casts = all_target_casts && IsTargetCast(*u.first);
      if (!all_target_casts) return;
      n->attrs.dict["__dtype__"] = std::to_string(static_cast<int>(opt_.target));
      for (const auto& u : uses[n.get()]) {
        // consumers of the cast now read the variable directly
        const Node* cast = u.first;
        for (const auto& cu : uses[cast]) cu.first->inputs[cu.second] = NodeEntry{n, 0, 0};
      }
      changed.push_back(n->attrs.name);
    });
    return changed;
  }

 private:
  bool IsTargetCast(const Node& n) const {
    if (n.is_variable() || n.op()->name != "amp_cast") return false;
    auto it = n.attrs.dict.find("dtype");
    return it != n.attrs.dict.end() && DTypeFromName(it->second) == opt_.target;
  }

  Category CategoryOf(const Node& n) const {
    const auto& excluded = opt_.excluded_sym_names;
    if (std::find(excluded.begin(), excluded.end(), n.attrs.name) != excluded.end())
      return Category::kFP32;
    Category c;
    SYMNET_CHECK(FindCategory(n.attrs, opt_, &c))
        << "AMP: operator " << n.op()->name << " (node '" << n.attrs.name
        << "') is in no precision list for " << opt_.target;
    return c;
  }

  /*! \brief The inputs of `n` with casts inserted as its category requires. */
  std::vector<NodeEntry> Rewrite(const Node& n, std::vector<NodeEntry> inputs) {
    const std::string& op = n.op()->name;
    if (op == "amp_cast" || op == "amp_multicast") return inputs;  // already decided
    const Category cat = CategoryOf(n);
    if (cat == Category::kTarget || cat == Category::kFP32) {
      const bool target = cat == Category::kTarget;
      const DType want = target ? opt_.target : DType::kFloat32;
      for (auto& e : inputs) {
        const DType t = TypeOf(e);
        // An input of unknown dtype is a variable bound later, float32 by default: a 16-bit op
        // needs a cast (an identity if it is already 16-bit), a float32 op does not.
        if ((IsCastable(t) && t != want) || (t == DType::kUnknown && target)) e = Cast(e, want);
      }
      return inputs;
    }
    if (cat == Category::kNeutral && TypeRuleAccepts(n, inputs)) return inputs;
    return CastToWidest(n, inputs);
  }

  /*! \brief Whether the op's own type rule accepts the current input dtypes. */
  bool TypeRuleAccepts(const Node& n, const std::vector<NodeEntry>& inputs) const {
    std::vector<DType> in, out(n.num_outputs(), DType::kUnknown);
    for (const auto& e : inputs) in.push_back(TypeOf(e));
    try {
      InferNodeTypes(n, &in, &out);
    } catch (...) {
      return false;
    }
    return true;
  }

  std::vector<NodeEntry> CastToWidest(const Node& n, std::vector<NodeEntry> inputs) {
    DType widest = DType::kUnknown;
    bool all_known = true;
    size_t floats = 0;
    for (const auto& e : inputs) {
      const DType t = TypeOf(e);
      if (t == DType::kUnknown) all_known = false;
      if (t == DType::kUnknown || IsFloatType(t)) ++floats;
      if (IsFloatType(t) && FloatWidthRank(t) > FloatWidthRank(widest)) widest = t;
    }
    if (floats < 2) return inputs;
    if (all_known) {
      for (auto& e : inputs)
        if (IsCastable(TypeOf(e)) && TypeOf(e) != widest) e = Cast(e, widest);
      return inputs;
    }
    // some dtype is only known at bind time: one amp_multicast decides then
    std::vector<NodeEntry> mc_in;
    std::vector<size_t> pos;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const DType t = TypeOf(inputs[i]);
      if (t == DType::kUnknown || IsFloatType(t)) {
        mc_in.push_back(inputs[i]);
        pos.push_back(i);
      }
    }
    NodePtr mc = CreateOpNode(Op::Get("amp_multicast"), n.attrs.name + "_amp_multicast",
                              {{"num_outputs", std::to_string(mc_in.size())}}, mc_in);
    Propagate(mc);
    for (size_t k = 0; k < pos.size(); ++k)
      inputs[pos[k]] = NodeEntry{mc, static_cast<uint32_t>(k), 0};
    return inputs;
  }

  NodeEntry Cast(const NodeEntry& src, DType t) {
    const EntryKey key{src.node.get(), src.index};
    auto& slot = casts_[{key, t}];
    if (slot.node) return slot;
    NodePtr c = CreateOpNode(Op::Get("amp_cast"), OutputName(src) + "_amp_cast_" + DTypeName(t),
                             {{"dtype", DTypeName(t)}}, {src});
    slot = NodeEntry{c, 0, 0};
    SetType(slot, t);
    return slot;
  }

  static void InferNodeTypes(const Node& n, std::vector<DType>* in, std::vector<DType>* out) {
    if (const auto* f = n.op()->attr<FInferType>("FInferType")) {
      (*f)(n.attrs, in, out);
      return;
    }
    DType t = DType::kUnknown;
    for (DType x : *in)
      if (x != DType::kUnknown) t = x;
    for (DType x : *in) SYMNET_CHECK(x == DType::kUnknown || x == t) << "mixed input dtypes";
    for (auto& o : *out) o = t;
  }

  /*! \brief Output dtypes of a (rewritten) node from its inputs' dtypes. */
  void Propagate(const NodePtr& n) {
    std::vector<DType> in, out(n->num_outputs(), DType::kUnknown);
    for (const auto& e : n->inputs) in.push_back(TypeOf(e));
    if (n->op()->name == "amp_cast") {
      // a cast of an input of unknown dtype still produces its dtype (inputs are floats)
      const DType to = DTypeFromName(n->attrs.dict.at("dtype"));
      out[0] = in[0] != DType::kUnknown && !IsFloatType(in[0]) ? in[0] : to;
    } else {
      try {
        InferNodeTypes(*n, &in, &out);
      } catch (...) {
        out.assign(out.size(), DType::kUnknown);
      }
    }
    for (uint32_t i = 0; i < out.size(); ++i) SetType(NodeEntry{n, i, 0}, out[i]);
  }

  DType TypeOf(const NodeEntry& e) const {
    auto it = types_.find(EntryKey{e.node.get(), e.index});
    return it == types_.end() ? DType::kUnknown : it->second;
  }
  void SetType(const NodeEntry& e, DType t) { types_[EntryKey{e.node.get(), e.index}] = t; }

  const AmpOptions& opt_;
  std::map<EntryKey, DType> types_;
  std::map<std::pair<EntryKey, DType>, NodeEntry> casts_;
};

}  // namespace

Symbol ReducePrecision(const Symbol& sym, const AmpOptions& opt,
                       std::vector<std::string>* low_precision_params) {
  Rewriter r(opt);
  Symbol out = r.Run(sym);
  std::vector<std::string> changed;
  if (opt.cast_optional_params) changed = r.StoreParamsIn16Bit(&out);
  if (low_precision_params) *low_precision_params = changed;
  return out;
}

}  // namespace amp
}  // namespace symnet
