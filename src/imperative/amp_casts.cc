/*! \brief Imperative AMP (amp.init for non-hybridized code): inputs cast through amp_cast. */
#include "src/imperative/amp_casts.h"

#include "symnet/amp.h"
#include "symnet/imperative.h"

namespace symnet {

std::vector<NDArray> AmpCastInputs(const NodeAttrs& attrs, const std::vector<NDArray>& inputs) {
  const auto opt = amp::ImperativeOptions();
  if (!opt) return {};
  std::vector<DType> types;
  for (const auto& a : inputs) {
    if (a.is_none()) return {};  // InvokeNode reports it
    types.push_back(a.dtype());
  }
  const std::vector<DType> casts = amp::InputCasts(attrs, types, *opt);
  if (casts.empty()) return {};
  std::vector<NDArray> out = inputs;
  for (size_t i = 0; i < casts.size(); ++i) {
    if (casts[i] != DType::kUnknown)
      out[i] = Invoke("amp_cast", {{"dtype", DTypeName(casts[i])}}, {inputs[i]})[0];
  }
  return out;
}

}  // namespace symnet
