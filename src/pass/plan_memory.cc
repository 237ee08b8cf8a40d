/*!
 * \brief Memory planning: dtype-aware sizes, in-place reuse, then one arena packed by lifetime
 *  (largest block first, best fit among blocks whose lifetimes overlap), as in XLA's heap
 *  simulator. MXNet 1.x sized every entry as 4 bytes per element and pooled by size class.
 */
#include <algorithm>

#include "symnet/pass.h"
#include "symnet/storage.h"

namespace symnet {

namespace {

struct Block {
  size_t bytes;  // rounded up to the alignment
  uint32_t start, end;
  size_t offset = 0;
};

size_t AlignUp(size_t n) { return (n + kStorageAlign - 1) / kStorageAlign * kStorageAlign; }

/*! \brief Places blocks; returns the arena size. */
size_t PackBlocks(std::vector<Block>* blocks) {
  std::vector<size_t> order(blocks->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Block &x = (*blocks)[a], &y = (*blocks)[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.start < y.start;
  });
  std::vector<size_t> placed;
  std::vector<std::pair<size_t, size_t>> busy;  // (offset, end offset) of overlapping blocks
  size_t arena = 0;
  for (size_t idx : order) {
    Block& b = (*blocks)[idx];
    busy.clear();
    for (size_t p : placed) {
      const Block& o = (*blocks)[p];
      if (o.start <= b.end && b.start <= o.end) busy.emplace_back(o.offset, o.offset + o.bytes);
    }
    std::sort(busy.begin(), busy.end());
    size_t cursor = 0, best = static_cast<size_t>(-1), best_gap = static_cast<size_t>(-1);
    for (const auto& r : busy) {
      if (r.first > cursor) {
        const size_t gap = r.first - cursor;
        if (gap >= b.bytes && gap < best_gap) {
          best_gap = gap;
          best = cursor;
        }
      }
      cursor = std::max(cursor, r.second);
    }
    b.offset = best != static_cast<size_t>(-1) ? best : cursor;
    arena = std::max(arena, b.offset + b.bytes);
    placed.push_back(idx);
  }
  return arena;
}

}  // namespace

MemoryPlan PlanMemory(const IndexedGraph& g, const std::vector<Shape>& shapes,
                      const std::vector<DType>& types, const std::vector<bool>& external,
                      const std::vector<bool>& keep_alive, const std::vector<uint32_t>& order) {
  const size_t num_entries = g.num_entries();
  SYMNET_CHECK(shapes.size() == num_entries && types.size() == num_entries &&
               external.size() == num_entries && keep_alive.size() == num_entries);
  MemoryPlan plan;
  plan.entry_offset.assign(num_entries, MemoryPlan::kExternal);
  plan.inplace_source.assign(num_entries, -1);
  plan.temp_offset.assign(g.num_nodes(), MemoryPlan::kExternal);
  plan.temp_bytes.assign(g.num_nodes(), 0);

  std::vector<size_t> bytes(num_entries, 0);
  for (size_t e = 0; e < num_entries; ++e) {
    if (shapes[e].is_known() && types[e] != DType::kUnknown)
      bytes[e] = static_cast<size_t>(shapes[e].Size()) * DTypeSize(types[e]);
  }
  const uint32_t kEnd = static_cast<uint32_t>(order.size());
  std::vector<int64_t> last_use(num_entries, -1);
  for (uint32_t s = 0; s < order.size(); ++s)
    for (const auto& in : g[order[s]].inputs)
      last_use[g.entry_id(in)] = std::max<int64_t>(last_use[g.entry_id(in)], s);
  for (size_t e = 0; e < num_entries; ++e)
    if (keep_alive[e]) last_use[e] = kEnd;

  std::vector<Block> blocks;
  std::vector<int64_t> entry_block(num_entries, -1);
  std::vector<int64_t> temp_block(g.num_nodes(), -1);
  MemoryReport& rep = plan.report;
  for (uint32_t s = 0; s < order.size(); ++s) {
    const uint32_t nid = order[s];
    const Node& n = g.node(nid);
    const auto& info = g[nid];
    std::vector<std::pair<int, int>> inplace;
    if (auto* f = n.op()->attr<FInplaceOption>("FInplaceOption")) inplace = (*f)(n.attrs);
    std::vector<int64_t> taken;  // blocks already reused by an output of this node
    for (uint32_t i = 0; i < n.num_outputs(); ++i) {
      const uint32_t e = g.entry_id(nid, i);
      if (external[e]) {
        rep.external_bytes += bytes[e];
        continue;
      }
      ++rep.num_entries;
      rep.no_sharing_bytes += bytes[e];
      const uint32_t end = static_cast<uint32_t>(std::max<int64_t>(s, last_use[e]));
      bool done = false;
      for (const auto& p : inplace) {
        if (p.second != static_cast<int>(i)) continue;
        const uint32_t ein = g.entry_id(info.inputs[p.first]);
        const int64_t b = entry_block[ein];
        if (b < 0 || blocks[b].end != s || last_use[ein] != s || bytes[ein] != bytes[e]) continue;
        if (std::find(taken.begin(), taken.end(), b) != taken.end()) continue;
        blocks[b].end = end;
        entry_block[e] = b;
        plan.inplace_source[e] = ein;
        taken.push_back(b);
        ++rep.num_inplace;
        done = true;
        break;
      }
      if (!done) {
        entry_block[e] = static_cast<int64_t>(blocks.size());
        blocks.push_back(Block{AlignUp(std::max<size_t>(bytes[e], 1)), s, end});
      }
    }
    if (auto* ft = n.op()->attr<FTempSpace>("FTempSpace")) {
      std::vector<Shape> in_shapes;
      std::vector<DType> in_types;
      for (const auto& in : info.inputs) {
        in_shapes.push_back(shapes[g.entry_id(in)]);
        in_types.push_back(types[g.entry_id(in)]);
      }
      const size_t tb = (*ft)(n.attrs, in_shapes, in_types);
      if (tb > 0) {
        plan.temp_bytes[nid] = tb;
        rep.no_sharing_bytes += tb;
        temp_block[nid] = static_cast<int64_t>(blocks.size());
        blocks.push_back(Block{AlignUp(tb), s, s});
      }
    }
  }

  // lower bound: the most bytes alive at any one step
  std::vector<int64_t> delta(order.size() + 2, 0);
  for (const Block& b : blocks) {
    delta[b.start] += static_cast<int64_t>(b.bytes);
    delta[b.end + 1] -= static_cast<int64_t>(b.bytes);
  }
  int64_t live = 0;
  for (int64_t d : delta) {
    live += d;
    rep.lower_bound_bytes = std::max(rep.lower_bound_bytes, static_cast<size_t>(live));
  }

  rep.arena_bytes = PackBlocks(&blocks);
  for (size_t e = 0; e < num_entries; ++e)
    if (entry_block[e] >= 0) plan.entry_offset[e] = blocks[entry_block[e]].offset;
  for (size_t nid = 0; nid < g.num_nodes(); ++nid)
    if (temp_block[nid] >= 0) plan.temp_offset[nid] = blocks[temp_block[nid]].offset;
  return plan;
}

}  // namespace symnet
