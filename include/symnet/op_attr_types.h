/*!
 * \brief The typed attributes an op may register (docs/architecture.md). Each alias says what it
 *  computes, who calls it and what happens when an op does not register it.
 */
#ifndef SYMNET_OP_ATTR_TYPES_H_
#define SYMNET_OP_ATTR_TYPES_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "symnet/node.h"
#include "symnet/tensor.h"

namespace symnet {

/*!
 * \brief Thrown by FInferShape/FInferType helpers on a mismatch (slot `index` of the inputs or
 *  outputs); the inference pass or imperative call that catches it adds the node context.
 */
struct InferError {
  bool is_input;
  int index;
  std::string expected;
  std::string actual;
};

/*!
 * \brief Shape inference: fill unknown entries of `in` and `out` from known ones (both ways).
 *  Return false when not enough is known yet; throw when shapes are inconsistent.
 *  Registered as "FInferShape". Required for every op.
 */
using FInferShape =
    std::function<bool(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out)>;

/*!
 * \brief Type inference, like FInferShape with DType::kUnknown as "unknown".
 *  Registered as "FInferType". Default: all inputs and outputs share one dtype.
 */
using FInferType =
    std::function<bool(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out)>;

/*! \brief Names of the inputs ("data", "weight", ...). "FListInputNames"; default: "data" or arg%d.
 */
using FListInputNames = std::function<std::vector<std::string>(const NodeAttrs& attrs)>;
/*! \brief Names of the outputs. "FListOutputNames"; default: "output" or output%d. */
using FListOutputNames = std::function<std::vector<std::string>(const NodeAttrs& attrs)>;
/*! \brief How many outputs the user sees. "FNumVisibleOutputs"; default: all. */
using FNumVisibleOutputs = std::function<uint32_t(const NodeAttrs& attrs)>;

/*!
 * \brief Indices of inputs the op updates in place (auxiliary states such as BatchNorm's
 *  moving_mean, optimizer states). "FMutateInputs"; default: none.
 */
using FMutateInputs = std::function<std::vector<uint32_t>(const NodeAttrs& attrs)>;

/*!
 * \brief Variable attributes an op gives the variable feeding input `index` when a symbol is
 *  composed, unless the variable already has them (BatchNorm: __init__ zero/one for its moving
 *  statistics, as MXNet writes them). "FInputVarAttrs"; default: none.
 */
using FInputVarAttrs =
    std::function<std::map<std::string, std::string>(const NodeAttrs& attrs, uint32_t index)>;

/*!
 * \brief Builds the gradient: given the node and the gradients of its outputs, returns one entry
 *  per input (gradients of inputs that need none may be any entry; they are pruned).
 *  "FGradient"; an op without it cannot be differentiated (error at bind when needed).
 */
using FGradient = std::function<std::vector<NodeEntry>(const NodePtr& node,
                                                       const std::vector<NodeEntry>& ograds)>;

/*!
 * \brief Pairs (input index, output index) where the output may be written into the input's
 *  buffer when that input is not needed afterwards. "FInplaceOption"; default: none.
 */
using FInplaceOption = std::function<std::vector<std::pair<int, int>>(const NodeAttrs& attrs)>;

/*!
 * \brief Bytes of scratch memory a call needs, given its input shapes and dtypes. The memory
 *  planner places it in the arena for the duration of the call. "FTempSpace"; default: 0.
 */
using FTempSpace = std::function<size_t(const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
                                        const std::vector<DType>& in_types)>;

/*!
 * \brief Which activation slots of an op may be stored channels-last (Layout::kChannelsLast).
 *  Each group lists (is_output, slot) pairs that must share one layout; `prefer` asks for
 *  channels-last (convolutions run fastest that way). The executor's layout plan (PlanLayout)
 *  decides per group and converts at the edges of channels-last regions.
 *  "FLayoutSlots"; default: every slot stays in the default (row-major) layout.
 */
struct LayoutSlots {
  std::vector<std::vector<std::pair<bool, int>>> groups;
  bool prefer = false;
};
using FLayoutSlots = std::function<LayoutSlots(const NodeAttrs& attrs)>;

/*!
 * \brief For each group of the op's FLayoutSlots, the layout its kernel runs fastest with on the
 *  CPU at hand for these input shapes and dtypes, as the kernel library answers it (oneDNN's
 *  format_tag::any: nChw16c on AVX-512, nChw8c on AVX2, ...); Layout::kDefault where it has no
 *  opinion. PlanLayout gives each region the layout most of its ops ask for, so no layout is
 *  hard-coded for one CPU. "FLayoutPreference"; default: a preferring op (LayoutSlots::prefer)
 *  asks for channels-last.
 */
using FLayoutPreference =
    std::function<std::vector<Layout>(const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
                                      const std::vector<DType>& in_types)>;

/*! \brief Marks loss heads: their gradient ignores the head gradient. "TIsLoss". */
using TIsLoss = bool;
/*! \brief Marks ops that only appear in gradient graphs (hidden from user APIs). "TIsBackward". */
using TIsBackward = bool;
/*!
 * \brief Marks ops that draw fresh random numbers on every call (Dropout's mask): a step that
 *  holds one is never captured as a CUDA graph, whose replays would repeat the numbers.
 *  "TDrawsRandom".
 */
using TDrawsRandom = bool;
/*!
 * \brief Marks ops whose kernel runs host code with effects of its own (Custom's Python
 *  callbacks): a step that holds one is never captured as a CUDA graph, which would replay only
 *  the kernels the callback happened to launch. "THostCallback".
 */
using THostCallback = bool;
/*!
 * \brief Marks ops whose parameters are open-ended (Custom passes every parameter to the user's
 *  CustomOpProp): parsing does not reject keys missing from the op's parameter docs.
 *  "TAcceptAnyParams".
 */
using TAcceptAnyParams = bool;

/*! \brief State an op keeps between calls at one call site (e.g. cached oneDNN primitives). */
struct OpState {
  virtual ~OpState() = default;
};

/*! \brief What a kernel gets besides its inputs and outputs. */
struct OpContext {
  /*! \brief Training mode (Dropout drops, BatchNorm uses batch statistics). */
  bool is_train = false;
  Device dev = Device::CPU();
  /*! \brief Scratch memory of the size FTempSpace asked for (dptr null when none). */
  void* temp = nullptr;
  size_t temp_bytes = 0;
  /*!
   * \brief Dynamic loss scale: loss heads (TIsLoss) multiply the gradients they produce by it.
   *  A runtime value, so changing it needs no rebind.
   */
  float loss_scale = 1.0f;
  /*!
   * \brief The bind's cap on one op's temporary memory (BindOptions::workspace_mb), in bytes:
   *  GPU convolutions choose algorithms within min(their `workspace` attribute, this).
   */
  size_t workspace_cap_bytes = size_t(1024) << 20;
  /*! \brief The call site's state slot: empty on the first call, kept afterwards. May be null. */
  std::unique_ptr<OpState>* state = nullptr;

  /*!
   * \brief The call site's state of type S, created by `make()` on first use or when `valid`
   *  says the cached one no longer fits (e.g. shapes changed in an imperative call). A slot that
   *  holds another type (a kernel that put its own state there, then staged through float32) is
   *  replaced, never reinterpreted.
   */
  template <typename S, typename Make, typename Valid>
  S& GetState(Make make, Valid valid) const {
    SYMNET_CHECK(state != nullptr) << "internal error: this op needs a state slot";
    if (!*state || typeid(**state) != typeid(S) || !valid(static_cast<S&>(**state)))
      state->reset(make());
    return static_cast<S&>(**state);
  }
};

/*!
 * \brief The kernel. Registered as "FCompute<cpu>" and (from .cu files) "FCompute<gpu>".
 *  Outputs are written according to req (kAddTo accumulates).
 */
using FCompute = std::function<void(
    const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& inputs,
    const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs)>;

/*! \brief The attribute key of the kernel for a device. */
inline const char* FComputeKey(Device dev) {
  return dev.type == Device::kGPU ? "FCompute<gpu>" : "FCompute<cpu>";
}

}  // namespace symnet

#endif  // SYMNET_OP_ATTR_TYPES_H_
