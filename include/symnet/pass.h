/*! \brief Graph passes: shape/type inference, gradient construction, memory planning. */
#ifndef SYMNET_PASS_H_
#define SYMNET_PASS_H_

#include <array>
#include <string>
#include <vector>

#include "symnet/graph.h"
#include "symnet/op_attr_types.h"

namespace symnet {

/*!
 * \brief Infers every entry's shape to a fixed point, forward and backward. `shapes` has one
 *  slot per entry; known slots are inputs. Throws an error naming node, op, argument and both
 *  shapes on inconsistency. \return the number of entries still unknown.
 */
size_t InferShapes(const IndexedGraph& g, std::vector<Shape>* shapes);

/*! \brief Same as InferShapes, for dtypes (DType::kUnknown = unknown). */
size_t InferTypes(const IndexedGraph& g, std::vector<DType>* types);

/*!
 * \brief Builds gradient entries of `xs` (variables) given the heads `ys` and their gradients
 *  `ys_grads` (usually variables). Multiple contributions are summed with add_n; an input
 *  reached by no gradient gets zeros_like. Every returned entry is produced by an op node and
 *  no two returned entries are the same (a _copy is inserted where needed), so each can be
 *  written into the caller's gradient array.
 */
std::vector<NodeEntry> Gradient(const std::vector<NodeEntry>& ys, const std::vector<NodePtr>& xs,
                                const std::vector<NodeEntry>& ys_grads);

/*!
 * \brief What a layout plan is for. kCPU: the formats oneDNN picks on the CPU at hand
 *  (FLayoutPreference: nChw16c on AVX-512, nChw8c on AVX2, channels-last where channels fit no
 *  block), for every op that prefers them. kGPU: channels-last only, and only
 *  where a 16-bit op prefers it (cuDNN's tensor-core kernels want NHWC; float32 graphs keep
 *  NCHW, which cuDNN's FMA kernels handle as well).
 */
/*!
 * \brief kCPU: each region in the layout its ops ask for (oneDNN's choice); kGPU: channels-last
 *  for 16-bit regions; kChannelsLast: channels-last for every region (BindOptions layout "NHWC").
 */
enum class LayoutTarget { kCPU, kGPU, kChannelsLast };

/*!
 * \brief Chooses each entry's memory layout (see plan_layout.cc): a non-default layout for
 *  activations in regions of ops that support it, when some op prefers it and no entry of the
 *  region is pinned (pinned: must stay in the default layout, e.g. arguments and graph outputs).
 */
/*! \brief How many of a region's ops asked for each Layout (indexed by its value). */
using LayoutVotes = std::array<int, 4>;
/*!
 * \brief The layout of a CPU region: the most asked-for of its votes that its channel counts
 *  allow (a blocked layout's block must divide `channel_gcd`, the gcd of the members' channel
 *  counts); channels-last, which every oneDNN ISA level runs, when no vote fits.
 */
Layout ChooseRegionLayout(const LayoutVotes& votes, int64_t channel_gcd);

std::vector<Layout> PlanLayout(const IndexedGraph& g, const std::vector<Shape>& shapes,
                               const std::vector<DType>& types, const std::vector<bool>& pinned,
                               LayoutTarget target = LayoutTarget::kCPU);

/*!
 * \brief For executors that compute no gradient: rewrites each Convolution -> BatchNorm (->
 *  elemwise_add with a residual) (-> ReLU) chain whose intermediate results nothing else reads
 *  into one `_FusedConvBN` node, which folds the BatchNorm into the convolution in inference.
 *  Channels-first convolutions and BatchNorm over axis 1 only. The nodes must belong to the
 *  caller; `heads` are updated.
 *  \return the number of chains fused.
 */
size_t FuseConvBatchNorm(std::vector<NodeEntry>* heads);

/*!
 * \brief For CPU training binds, before the gradient pass: rewrites each BatchNorm -> ReLU
 *  (Activation act_type=relu, or relu) pair whose BatchNorm results nothing else reads into one
 *  `_FusedBatchNormReLU` node named after the ReLU, whose own backward applies the ReLU mask
 *  inside BatchNorm's backward (oneDNN's fused normalization + ReLU). The nodes must belong to
 *  the caller; `heads` are updated.
 *  \return the number of pairs fused.
 */
size_t FuseBatchNormReLU(std::vector<NodeEntry>* heads);

/*!
 * \brief For CPU binds, before the gradient pass: rewrites each elemwise_add -> ReLU pair (a
 *  residual sum then its ReLU) whose sum nothing else reads into one `_FusedAddReLU` node named
 *  after the ReLU (one pass over the activations instead of two).
 *  \return the number of pairs fused.
 */
size_t FuseAddReLU(std::vector<NodeEntry>* heads);

/*!
 * \brief Merges nodes with the same operator, parameters and inputs (MXNet's common
 *  subexpression elimination at bind); heads that become one entry get copies. Ops that draw
 *  random numbers, mutate inputs or call back into user code are never merged. \return the
 *  number of nodes merged away.
 */
size_t EliminateCommonExpr(std::vector<NodeEntry>* heads);

/*!
 * \brief For CPU binds, after the gradient pass: rewrites each gradient sum (add_n or
 *  elemwise_add) whose only reader is a ReLU backward node, as its output gradient, into one
 *  `_backward_FusedAddNReLU` node that sums and masks in a single loop.
 *  \return the number of sums fused.
 */
size_t FuseGradSumReLU(std::vector<NodeEntry>* heads);

/*!
 * \brief Rewrites the graph in place with `_convert_layout` copies where a channels-last region
 *  meets an op that reads or writes only the default layout (on either side of the region). The
 *  nodes must belong to the caller (the executor works on a copy of the user's graph).
 *  \return the number of conversions.
 */
size_t InsertLayoutConversions(const IndexedGraph& g, const std::vector<Layout>& layout);

/*! \brief Figures a memory plan reports (bytes). */
struct MemoryReport {
  /*! \brief The one arena all intermediate results and scratch buffers live in. */
  size_t arena_bytes = 0;
  /*! \brief What the same entries would take with no sharing and no in-place reuse. */
  size_t no_sharing_bytes = 0;
  /*! \brief Max over steps of bytes alive at that step (no plan can use less). */
  size_t lower_bound_bytes = 0;
  /*! \brief Outputs written into the buffer of an input that died at that op. */
  size_t num_inplace = 0;
  /*! \brief Arrays outside the arena: arguments, gradients, auxiliary states. */
  size_t external_bytes = 0;
  size_t num_entries = 0;
};

/*! \brief Where each entry lives after planning. */
struct MemoryPlan {
  static constexpr size_t kExternal = static_cast<size_t>(-1);
  /*! \brief Byte offset in the arena per entry, or kExternal. */
  std::vector<size_t> entry_offset;
  /*! \brief For each entry written in place: the input entry whose buffer it took, else -1. */
  std::vector<int64_t> inplace_source;
  /*! \brief Scratch offset per node (kExternal when the node needs none) and its size. */
  std::vector<size_t> temp_offset;
  std::vector<size_t> temp_bytes;
  MemoryReport report;
};

/*!
 * \brief Plans the arena (docs/architecture.md): sizes by shape x dtype size, applies
 *  FInplaceOption, then packs blocks by lifetime, largest first, best fit in address for
 *  overlapping lifetimes.
 * \param external per entry: true when the entry has memory of its own (args, grads, aux)
 * \param keep_alive per entry: true when it must survive to the end (graph outputs)
 * \param order node ids in execution order (op nodes only)
 */
MemoryPlan PlanMemory(const IndexedGraph& g, const std::vector<Shape>& shapes,
                      const std::vector<DType>& types, const std::vector<bool>& external,
                      const std::vector<bool>& keep_alive, const std::vector<uint32_t>& order);

}  // namespace symnet

#endif  // SYMNET_PASS_H_
