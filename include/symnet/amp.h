/*!
 * \brief Automatic mixed precision (docs/architecture.md): the precision lists and the
 *  ReducePrecision rewrite that inserts amp_cast/amp_multicast so that the listed ops run in
 *  float16/bfloat16 while precision-sensitive ones stay float32.
 */
#ifndef SYMNET_AMP_H_
#define SYMNET_AMP_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symnet/symbol.h"

namespace symnet {
namespace amp {

enum class Category {
  kTarget,   // runs in the 16-bit target dtype (Convolution, FullyConnected)
  kFP32,     // precision-sensitive: runs in float32 (softmax, losses, reductions)
  kNeutral,  // runs in whatever dtype arrives (relu, pooling, reshape, BatchNorm)
  kWidest,   // several inputs: all cast to the widest dtype among them (elemwise_add, add_n)
};

const char* CategoryName(Category c);

/*! \brief An attribute value that makes an op float32 (Activation act_type=softrelu). */
struct ConditionalFP32 {
  std::string op, attr;
  std::vector<std::string> values;
};

/*! \brief The category of every listed op for `target` (float16 or bfloat16). */
const std::map<std::string, Category>& Lists(DType target);
/*! \brief The conditional float32 rules for `target`. */
const std::vector<ConditionalFP32>& ConditionalLists(DType target);
/*! \brief Ops in category `c` for `target`, sorted. */
std::vector<std::string> OpsIn(Category c, DType target);

struct AmpOptions {
  DType target = DType::kFloat16;
  /*! \brief Overrides of the lists: these ops run in the target dtype / in float32. */
  std::vector<std::string> target_dtype_ops, fp32_ops;
  /*! \brief Extra conditional rules (added to the defaults). */
  std::vector<ConditionalFP32> conditional_fp32_ops;
  /*! \brief Nodes (by name) that stay float32 whatever their op. */
  std::vector<std::string> excluded_sym_names;
  /*! \brief Inputs that are data, not parameters (never stored in 16 bits). */
  std::vector<std::string> data_names;
  /*! \brief Parameters that only feed 16-bit ops become 16-bit variables (no cast). */
  bool cast_optional_params = false;
  /*!
   * \brief MXNet's convert_symbol semantics: target_dtype_ops, fp32_ops and conditional_fp32_ops
   *  are the whole lists (not overrides of the defaults), the widest-type list stays the default
   *  one, and every other op, listed or not, is neutral.
   */
  bool replace_lists = false;
};

/*!
 * \brief The mixed-precision version of `sym` (a new graph; `sym` is untouched). Properties:
 *  at most one cast per (producer output, dtype); no cast where dtypes already agree; widest-type
 *  ops cast statically when input dtypes are known and through amp_multicast otherwise; float
 *  graph outputs come back as float32; converting a converted graph changes nothing; cast nodes
 *  are named after what they cast, so the result does not depend on traversal order.
 * \param low_precision_params with cast_optional_params: the parameters now stored in 16 bits
 */
Symbol ReducePrecision(const Symbol& sym, const AmpOptions& opt,
                       std::vector<std::string>* low_precision_params = nullptr);

/*!
 * \brief The category of op `attrs.op` (attributes `attrs.dict`) under `opt`: its fp32_ops and
 *  target_dtype_ops overrides first, then the conditional float32 rules (the defaults and opt's),
 *  then the lists. excluded_sym_names name graph nodes and are not consulted here. False when the
 *  op is in no list.
 */
bool FindCategory(const NodeAttrs& attrs, const AmpOptions& opt, Category* cat);

/*!
 * \brief The casts ReducePrecision inserts in front of an op whose input dtypes are all known
 *  (`in`), i.e. what an imperative call under AMP casts: the dtype each input is cast to, or
 *  DType::kUnknown where it stays as it is; empty when nothing is cast. Only float32, float16 and
 *  bfloat16 inputs are cast (never integer indices or labels). An op in no list casts nothing.
 */
std::vector<DType> InputCasts(const NodeAttrs& attrs, const std::vector<DType>& in,
                              const AmpOptions& opt);

/*!
 * \brief Imperative AMP (what amp.init turns on for non-hybridized code): while set, every
 *  imperative op invocation (symnet::Invoke) casts its inputs as InputCasts says, through
 *  amp_cast, so autograd records the casts. Process-wide; nullptr turns it off.
 */
void SetImperativeOptions(std::shared_ptr<const AmpOptions> opt);
/*! \brief The imperative AMP options, or nullptr when it is off. */
std::shared_ptr<const AmpOptions> ImperativeOptions();

namespace detail {
extern std::atomic<bool> imperative_enabled;
}  // namespace detail
/*! \brief Whether imperative AMP is on: the one check an imperative call pays while it is off. */
inline bool ImperativeEnabled() {
  return detail::imperative_enabled.load(std::memory_order_relaxed);
}

/*!
 * \brief `sym` without its amp_cast/amp_multicast nodes (consumers read what was cast), as MXNet
 *  saves converted graphs by default; a control dependency on a cast is dropped with it.
 */
Symbol RemoveAmpCast(const Symbol& sym);

}  // namespace amp
}  // namespace symnet

#endif  // SYMNET_AMP_H_
