/*!
 * \brief FuseBatchNormReLU: BatchNorm -> ReLU pairs into _FusedBatchNormReLU nodes for CPU
 *  training binds, so that oneDNN's normalization applies the ReLU and, in backward, its mask
 *  (no ReLU pass and no ReLU-gradient pass over the activations). Runs before the gradient pass:
 *  the fused node brings its own backward op.
 */
#include "src/pass/fusion_graph.h"

namespace symnet {

using fusion::Is;

size_t FuseBatchNormReLU(std::vector<NodeEntry>* heads) {
  const fusion::Readers r(*heads);
  std::unordered_map<const Node*, NodeEntry> replaced;  // ReLU -> fused output
  for (const auto& bn : r.topo) {
    // BatchNorm's output feeds the ReLU only, and its mean and variance nobody (the fused node
    // shows one output: the ReLU's)
    if (!Is(*bn, "BatchNorm") || r.Used(bn, 1) || r.Used(bn, 2)) continue;
    const NodePtr relu = r.SoleUser(bn);
    if (!relu || !fusion::IsReLU(*relu) || relu->inputs.size() != 1) continue;
    // named after the ReLU: the group's output keeps the name the user sees
    NodePtr fused = CreateOpNode(Op::Get("_FusedBatchNormReLU"), relu->attrs.name,
                                 fusion::OpParams(bn->attrs), bn->inputs);
    replaced[relu.get()] = NodeEntry{fused, 0, 0};
  }
  return fusion::Redirect(r.topo, replaced, heads);
}

}  // namespace symnet
