/*!
 * \brief What the AMP rewrite and imperative AMP share: an op's category under the options, and
 *  the casts in front of an op whose input dtypes are known; and the process-wide options that
 *  amp.init sets for imperative calls (src/imperative/amp_casts.cc applies them).
 */
#include <algorithm>
#include <functional>
#include <mutex>

#include "symnet/amp.h"
#include "symnet/op_attr_types.h"

namespace symnet {
namespace amp {

namespace detail {
std::atomic<bool> imperative_enabled{false};
}  // namespace detail

namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool MatchesRule(const ConditionalFP32& rule, const NodeAttrs& attrs) {
  if (rule.op != attrs.op->name) return false;
  auto it = attrs.dict.find(rule.attr);
  return it != attrs.dict.end() && Contains(rule.values, it->second);
}

bool IsCastable(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16;
}

/*! \brief Whether the op's own type rule takes these input dtypes (as the rewrite checks). */
bool TypeRuleAccepts(const NodeAttrs& attrs, std::vector<DType> in) {
  std::vector<DType> out(attrs.op->NumOutputs(attrs), DType::kUnknown);
  if (const auto* f = attrs.op->attr<FInferType>("FInferType")) {
    try {
      (*f)(attrs, &in, &out);
    } catch (...) {
      return false;
    }
    return true;
  }
  // without a rule every input shares one dtype
  return std::adjacent_find(in.begin(), in.end(), std::not_equal_to<DType>()) == in.end();
}

std::mutex options_mutex;
std::shared_ptr<const AmpOptions> imperative_options;

}  // namespace

bool FindCategory(const NodeAttrs& attrs, const AmpOptions& opt, Category* cat) {
  const std::string& op = attrs.op->name;
  if (Contains(opt.fp32_ops, op)) {
    *cat = Category::kFP32;
    return true;
  }
  if (Contains(opt.target_dtype_ops, op)) {
    *cat = Category::kTarget;
    return true;
  }
  const std::vector<ConditionalFP32> none;
  const auto& defaults = opt.replace_lists ? none : ConditionalLists(opt.target);
  for (const auto* rules : {&defaults, &opt.conditional_fp32_ops}) {
    for (const auto& rule : *rules) {
      if (MatchesRule(rule, attrs)) {
        *cat = Category::kFP32;
        return true;
      }
    }
  }
  const auto& lists = Lists(opt.target);
  auto it = lists.find(op);
  if (opt.replace_lists) {
    // MXNet's lists replace the defaults: only the widest-type list is kept
    *cat = it != lists.end() && it->second == Category::kWidest ? Category::kWidest
                                                                : Category::kNeutral;
    return true;
  }
  if (it == lists.end()) return false;
  *cat = it->second;
  return true;
}

std::vector<DType> InputCasts(const NodeAttrs& attrs, const std::vector<DType>& in,
                              const AmpOptions& opt) {
  const std::string& op = attrs.op->name;
  if (in.empty() || op == "amp_cast" || op == "amp_multicast") return {};
  Category cat;
  if (!FindCategory(attrs, opt, &cat)) return {};
  std::vector<DType> casts;
  auto cast_to = [&](DType want) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (!IsCastable(in[i]) || in[i] == want) continue;
      if (casts.empty()) casts.assign(in.size(), DType::kUnknown);
      casts[i] = want;
    }
  };
  if (cat == Category::kTarget || cat == Category::kFP32) {
    cast_to(cat == Category::kTarget ? opt.target : DType::kFloat32);
    return casts;
  }
  // neutral and widest-type ops: only float inputs of different dtypes can need a cast, to the
  // widest of them (for a neutral op only when its type rule refuses the mix)
  DType widest = DType::kUnknown, first = DType::kUnknown;
  bool mixed = false;
  for (DType t : in) {
    if (!IsFloatType(t)) continue;
    if (first == DType::kUnknown) first = t;
    mixed = mixed || t != first;
    if (FloatWidthRank(t) > FloatWidthRank(widest)) widest = t;
  }
  if (!mixed || (cat == Category::kNeutral && TypeRuleAccepts(attrs, in))) return {};
  cast_to(widest);
  return casts;
}

void SetImperativeOptions(std::shared_ptr<const AmpOptions> opt) {
  if (opt) Lists(opt->target);  // validates the target dtype
  std::lock_guard<std::mutex> lock(options_mutex);
  imperative_options = std::move(opt);
  detail::imperative_enabled.store(imperative_options != nullptr, std::memory_order_relaxed);
}

std::shared_ptr<const AmpOptions> ImperativeOptions() {
  std::lock_guard<std::mutex> lock(options_mutex);
  return imperative_options;
}

}  // namespace amp
}  // namespace symnet
