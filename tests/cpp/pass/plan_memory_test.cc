/*!
 * \brief The memory planner on real training graphs: no two entries alive at the same step
 *  overlap in memory (unless one was written in place over the other), sizes follow dtypes,
 *  and the arena is close to the lower bound.
 */
#include <gtest/gtest.h>

#include "../test_util.h"

namespace symnet {
namespace {

struct PlannedGraph {
  std::unique_ptr<IndexedGraph> g;
  std::vector<Shape> shapes;
  std::vector<DType> types;
  std::vector<bool> external, keep;
  std::vector<uint32_t> order;
  MemoryPlan plan;
};

/*! \brief Builds forward + gradient graph like the executor does and plans it. */
PlannedGraph Plan(const Symbol& sym, const std::map<std::string, Shape>& in_shapes, DType dtype) {
  PlannedGraph p;
  std::vector<NodePtr> xs;
  for (const auto& n : sym.ArgumentNodes())
    if (n->attrs.name != "data" && n->attrs.name != "softmax_label") xs.push_back(n);
  std::vector<NodeEntry> heads = sym.outputs;
  auto hg = Node::Variable("head_grad");
  auto grads = Gradient(sym.outputs, xs, {NodeEntry{hg, 0, 0}});
  heads.insert(heads.end(), grads.begin(), grads.end());
  p.g = std::make_unique<IndexedGraph>(heads);
  const IndexedGraph& g = *p.g;
  std::vector<Shape> arg_shapes, out_shapes, aux_shapes;
  sym.InferShape(in_shapes, &arg_shapes, &out_shapes, &aux_shapes);
  p.shapes.assign(g.num_entries(), Shape());
  p.types.assign(g.num_entries(), DType::kUnknown);
  const auto args = sym.ArgumentNodes();
  for (size_t i = 0; i < args.size(); ++i) {
    const uint32_t e = g.entry_id(g.node_id(args[i].get()), 0);
    p.shapes[e] = arg_shapes[i];
    p.types[e] = dtype;
  }
  InferShapes(g, &p.shapes);
  InferTypes(g, &p.types);
  p.external.assign(g.num_entries(), false);
  p.keep.assign(g.num_entries(), false);
  for (uint32_t nid : g.input_nodes()) p.external[g.entry_id(nid, 0)] = true;
  for (const auto& ge : grads) p.external[g.entry_id(ge)] = true;
  for (size_t i = 0; i < sym.outputs.size(); ++i) p.keep[g.entry_id(g.outputs()[i])] = true;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    if (!g.node(nid).is_variable()) p.order.push_back(nid);
  p.plan = PlanMemory(g, p.shapes, p.types, p.external, p.keep, p.order);
  return p;
}

/*! \brief Lifetime [def, last use] of every arena entry, and overlap checks between them. */
void ExpectNoConflicts(const PlannedGraph& p) {
  const IndexedGraph& g = *p.g;
  const size_t n = g.num_entries();
  std::vector<int64_t> def(n, -1), last(n, -1);
  for (uint32_t s = 0; s < p.order.size(); ++s) {
    const uint32_t nid = p.order[s];
    for (uint32_t i = 0; i < g.node(nid).num_outputs(); ++i) def[g.entry_id(nid, i)] = s;
    for (const auto& in : g[nid].inputs)
      last[g.entry_id(in)] = std::max<int64_t>(last[g.entry_id(in)], s);
  }
  for (size_t e = 0; e < n; ++e) {
    if (p.keep[e]) last[e] = static_cast<int64_t>(p.order.size());
    last[e] = std::max(last[e], def[e]);
  }
  size_t checked = 0;
  for (size_t a = 0; a < n; ++a) {
    if (p.plan.entry_offset[a] == MemoryPlan::kExternal) continue;
    const size_t abytes = p.shapes[a].Size() * DTypeSize(p.types[a]);
    for (size_t b = a + 1; b < n; ++b) {
      if (p.plan.entry_offset[b] == MemoryPlan::kExternal) continue;
      // an in-place chain legitimately shares memory
      if (p.plan.inplace_source[b] == static_cast<int64_t>(a) ||
          p.plan.inplace_source[a] == static_cast<int64_t>(b))
        continue;
      const bool time_overlap = def[a] <= last[b] && def[b] <= last[a];
      if (!time_overlap) continue;
      const size_t bbytes = p.shapes[b].Size() * DTypeSize(p.types[b]);
      const size_t a0 = p.plan.entry_offset[a], b0 = p.plan.entry_offset[b];
      const bool mem_overlap = a0 < b0 + bbytes && b0 < a0 + abytes;
      bool chained = false;  // a and b in the same in-place chain
      for (int64_t c = p.plan.inplace_source[b]; c >= 0; c = p.plan.inplace_source[c])
        chained = chained || c == static_cast<int64_t>(a);
      EXPECT_TRUE(!mem_overlap || chained) << "entries " << a << " and " << b << " collide";
      ++checked;
    }
  }
  EXPECT_GT(checked, 10u);
}

Symbol DeepMLP() {
  Symbol x = Symbol::Variable("data");
  for (int i = 0; i < 4; ++i) {
    x = op::FullyConnected(x, 64 + 32 * i, "fc" + std::to_string(i));
    x = op::Activation(x, i % 2 ? "tanh" : "relu", "act" + std::to_string(i));
  }
  return op::SoftmaxOutput(op::FullyConnected(x, 10, "out"), "softmax");
}

TEST(PlanMemory, NoLiveEntriesOverlap) {
  PlannedGraph p = Plan(DeepMLP(), {{"data", Shape{32, 20}}}, DType::kFloat32);
  ExpectNoConflicts(p);
  const MemoryReport& r = p.plan.report;
  EXPECT_LT(r.arena_bytes, r.no_sharing_bytes);
  EXPECT_GE(r.arena_bytes, r.lower_bound_bytes);
  EXPECT_LE(r.arena_bytes, r.lower_bound_bytes * 11 / 10);
  EXPECT_GE(r.num_inplace, 4u);
}

TEST(PlanMemory, SizesFollowTheDtype) {
  PlannedGraph f32 = Plan(DeepMLP(), {{"data", Shape{64, 20}}}, DType::kFloat32);
  PlannedGraph f16 = Plan(DeepMLP(), {{"data", Shape{64, 20}}}, DType::kFloat16);
  PlannedGraph f64 = Plan(DeepMLP(), {{"data", Shape{64, 20}}}, DType::kFloat64);
  ExpectNoConflicts(f16);
  EXPECT_EQ(f16.plan.report.no_sharing_bytes * 2, f32.plan.report.no_sharing_bytes);
  EXPECT_EQ(f32.plan.report.no_sharing_bytes * 2, f64.plan.report.no_sharing_bytes);
  EXPECT_LE(f16.plan.report.arena_bytes, f32.plan.report.arena_bytes * 55 / 100);
}

}  // namespace
}  // namespace symnet
