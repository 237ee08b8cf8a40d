/*!
 * \brief PlanLayout: chooses oneDNN-friendly storage for activations in regions made of ops that
 *  declare FLayoutSlots, so consecutive convolutions, BatchNorms, poolings and element-wise ops
 *  exchange data without reorders (docs/architecture.md, "Passes").
 *
 *  Slots an op groups together are joined (union-find); a joined set leaves the default layout
 *  when some op prefers it and none of its entries is pinned (arguments, graph outputs, gradient
 *  arrays). Which layout it takes is asked of the ops (FLayoutPreference: oneDNN's choice for
 *  each convolution on the CPU at hand, nChw16c on AVX-512, nChw8c on AVX2): the layout most of
 *  the region's votes name, among those its channel counts allow (a blocked layout needs every
 *  member's channels to be a multiple of the block), else channels-last, which every oneDNN ISA
 *  level runs. No layout is a constant tuned on one machine: on AVX2, oneDNN 2.6 has no kernel
 *  for nChw16c and would fall back to its reference loops (seconds per convolution).
 *  Entries that are not 4-D/5-D stay in the default layout. For GPUs (LayoutTarget::kGPU)
 *  regions are channels-last, never blocked, and only 16-bit entries of preferring ops count.
 */
#include <array>
#include <numeric>

#include "symnet/pass.h"

namespace symnet {

namespace {

struct UnionFind {
  std::vector<uint32_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t Find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void Union(uint32_t a, uint32_t b) { parent[Find(a)] = Find(b); }
};

// float64 runs through reference loops written for the default layout (it serves gradient
// checks, not speed) and integer data has no layout-aware kernels, so only the types with oneDNN
// kernels (or staging into them) go NHWC.
// Entries with one spatial position (a global pooling's output) take the region's layout too:
// their bytes are the same in every layout, but kernels pick their code path from the layout
// flags of all their slots, so a region must not mix flags (a 1x1 output flagged default made
// global pooling read nChw16c input as NCHW).
bool CanBeChannelsLast(const Shape& s, DType t) {
  return s.is_known() && (s.ndim() == 4 || s.ndim() == 5) &&
         (t == DType::kFloat32 || t == DType::kBFloat16 || t == DType::kFloat16);
}

/*! \brief The layouts node `nid` asks for, one per slot group (empty: no opinion). */
std::vector<Layout> AskedLayouts(const IndexedGraph& g, uint32_t nid,
                                 const std::vector<Shape>& shapes,
                                 const std::vector<DType>& types) {
  const Node& n = g.node(nid);
  const auto* f = n.op()->attr<FLayoutPreference>("FLayoutPreference");
  if (!f) return {};
  std::vector<Shape> in_shapes;
  std::vector<DType> in_types;
  for (const auto& e : g[nid].inputs) {
    in_shapes.push_back(shapes[g.entry_id(e)]);
    in_types.push_back(types[g.entry_id(e)]);
  }
  return (*f)(n.attrs, in_shapes, in_types);
}

/*! \brief Entry ids of the slots of node `nid` that its FLayoutSlots groups (per group). */
std::vector<std::vector<uint32_t>> SlotGroups(const IndexedGraph& g, uint32_t nid, bool* prefer) {
  std::vector<std::vector<uint32_t>> out;
  const Node& n = g.node(nid);
  *prefer = false;
  if (n.is_variable()) return out;
  const auto* f = n.op()->attr<FLayoutSlots>("FLayoutSlots");
  if (!f) return out;
  const LayoutSlots slots = (*f)(n.attrs);
  *prefer = slots.prefer;
  for (const auto& group : slots.groups) {
    out.emplace_back();
    for (const auto& slot : group) {
      const uint32_t e =
          slot.first ? g.entry_id(nid, slot.second) : g.entry_id(g[nid].inputs.at(slot.second));
      out.back().push_back(e);
    }
  }
  return out;
}

}  // namespace

Layout ChooseRegionLayout(const LayoutVotes& votes, int64_t channel_gcd) {
  Layout best = Layout::kChannelsLast;
  int most = 0;
  for (Layout l : {Layout::kBlocked16, Layout::kBlocked8, Layout::kChannelsLast}) {
    const int n = votes[static_cast<int>(l)];
    const int block = ChannelBlock(l);
    if (n > most && (block == 0 || channel_gcd % block == 0)) {
      most = n;
      best = l;
    }
  }
  return best;
}

std::vector<Layout> PlanLayout(const IndexedGraph& g, const std::vector<Shape>& shapes,
                               const std::vector<DType>& types, const std::vector<bool>& pinned,
                               LayoutTarget target) {
  const bool gpu = target == LayoutTarget::kGPU, nhwc = target == LayoutTarget::kChannelsLast;
  auto prefers = [&](uint32_t e) {
    return !gpu || types[e] == DType::kFloat16 || types[e] == DType::kBFloat16;
  };
  const size_t num_entries = g.num_entries();
  UnionFind uf(num_entries);
  std::vector<bool> preferred(num_entries, false);
  std::vector<std::pair<uint32_t, Layout>> votes;  // (an entry of the group, the layout asked for)
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    bool prefer = false;
    const auto groups = SlotGroups(g, nid, &prefer);
    const std::vector<Layout> asked =
        prefer && !gpu && !nhwc ? AskedLayouts(g, nid, shapes, types) : std::vector<Layout>();
    for (size_t k = 0; k < groups.size(); ++k) {
      const auto& group = groups[k];
      for (size_t i = 1; i < group.size(); ++i) uf.Union(group[i], group[0]);
      if (!prefer) continue;
      for (uint32_t e : group)
        if (prefers(e)) preferred[e] = true;
      if (k < asked.size() && asked[k] != Layout::kDefault) votes.emplace_back(group[0], asked[k]);
    }
  }
  std::vector<LayoutVotes> root_votes(num_entries, LayoutVotes{});
  for (const auto& v : votes) ++root_votes[uf.Find(v.first)][static_cast<int>(v.second)];
  std::vector<bool> root_pinned(num_entries, false), root_preferred(num_entries, false);
  std::vector<int64_t> root_channel_gcd(num_entries, 0);  // gcd of the members' channel counts
  for (uint32_t e = 0; e < num_entries; ++e) {
    const uint32_t r = uf.Find(e);
    if (CanBeChannelsLast(shapes[e], types[e]))
      root_channel_gcd[r] = std::gcd(root_channel_gcd[r], shapes[e][1]);
    // a member of another dtype (float64, integers) pins its region too: it stays in the
    // default layout, so its ops (a Cast from int8, say) would see mixed layouts otherwise
    const bool plannable_type =
        types[e] == DType::kFloat32 || types[e] == DType::kBFloat16 || types[e] == DType::kFloat16;
    if (pinned[e] || !plannable_type) root_pinned[r] = true;
    if (preferred[e]) root_preferred[r] = true;
  }
  std::vector<Layout> layout(num_entries, Layout::kDefault);
  for (uint32_t e = 0; e < num_entries; ++e) {
    const uint32_t r = uf.Find(e);
    if (root_preferred[r] && !root_pinned[r] && CanBeChannelsLast(shapes[e], types[e]))
      layout[e] = gpu || nhwc ? Layout::kChannelsLast
                              : ChooseRegionLayout(root_votes[r], root_channel_gcd[r]);
  }
  return layout;
}

namespace {
/*! \brief Which input and output slots of node `nid` its FLayoutSlots cover. */
void CoveredSlots(const IndexedGraph& g, uint32_t nid, std::vector<bool>* in,
                  std::vector<bool>* out) {
  const Node& n = g.node(nid);
  in->assign(g[nid].inputs.size(), false);
  out->assign(n.num_outputs(), false);
  const auto* f = n.op()->attr<FLayoutSlots>("FLayoutSlots");
  if (!f) return;
  for (const auto& group : (*f)(n.attrs).groups)
    for (const auto& slot : group) (slot.first ? *out : *in)[slot.second] = true;
}
}  // namespace

size_t InsertLayoutConversions(const IndexedGraph& g, const std::vector<Layout>& layout) {
  const Op* convert = Op::Get("_convert_layout");
  auto make = [&](const NodeEntry& src, const char* suffix) {
    return NodeEntry{CreateOpNode(convert, src.node->attrs.name + suffix, {}, {src}), 0, 0};
  };
  size_t count = 0;
  std::vector<bool> in_cov, out_cov;
  // 1. an op that cannot write channels-last writes the default layout; a copy feeds the region
  std::vector<NodeEntry> to_region(g.num_entries());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g.node(nid).is_variable()) continue;
    CoveredSlots(g, nid, &in_cov, &out_cov);
    for (uint32_t i = 0; i < out_cov.size(); ++i) {
      const uint32_t e = g.entry_id(nid, i);
      if (layout[e] == Layout::kDefault || out_cov[i]) continue;
      to_region[e] = make(NodeEntry{g[nid].node, i, 0}, "_to_channels_last");
      ++count;
    }
  }
  // 2. each input reads the layout its slot accepts
  std::vector<NodeEntry> to_default(g.num_entries());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const auto& info = g[nid];
    if (info.node->is_variable()) continue;
    CoveredSlots(g, nid, &in_cov, &out_cov);
    for (size_t i = 0; i < info.inputs.size(); ++i) {
      const uint32_t e = g.entry_id(info.inputs[i]);
      if (layout[e] == Layout::kDefault) continue;
      if (to_region[e].node) {  // the entry itself is in the default layout now
        if (in_cov[i]) info.node->inputs[i] = to_region[e];
      } else if (!in_cov[i]) {
        if (!to_default[e].node) {
          to_default[e] = make(info.node->inputs[i], "_to_default_layout");
          ++count;
        }
        info.node->inputs[i] = to_default[e];
      }
    }
  }
  return count;
}

}  // namespace symnet
