/*!
 * \brief Parameter initialisation by name suffix (MXNet's Initializer rules), He-normal weights.
 */
#include <cmath>
#include <vector>

#include "symnet/base.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/*! \brief The initializer name of an __init__ attribute such as ["zero", {}] or "one". */
std::string InitAttrName(const std::string& attr) {
  std::string name;
  bool in_quotes = false;
  for (char c : attr) {
    if (c == '"') {
      if (in_quotes) break;
      in_quotes = true;
    } else if (in_quotes) {
      name += c;
    }
  }
  return name.empty() ? attr : name;
}

}  // namespace

void InitParameter(const std::string& name, const std::map<std::string, std::string>& var_attrs,
                   const NDArray& arr, std::mt19937_64* rng) {
  auto it = var_attrs.find("__init__");
  if (it != var_attrs.end()) {
    const std::string kind = InitAttrName(it->second);
    if (kind == "zero" || kind == "zeros") {
      arr.Fill(0.0);
      return;
    }
    if (kind == "one" || kind == "ones") {
      arr.Fill(1.0);
      return;
    }
    SYMNET_THROW << "parameter '" << name << "': __init__ '" << it->second
                 << "' is not supported by the C++ initializer (zero or one expected)";
  }
  if (EndsWith(name, "weight")) {
    // He-normal: Xavier(rnd_type=gaussian, factor_type=in, magnitude=2), fan_in = in * kernel
    const Shape& s = arr.shape();
    const double fan_in = s.ndim() > 1 ? static_cast<double>(s.ProdRange(1, s.ndim())) : 1.0;
    std::normal_distribution<float> dist(0.f, static_cast<float>(std::sqrt(2.0 / fan_in)));
    std::vector<float> v(static_cast<size_t>(arr.Size()));
    for (auto& x : v) x = dist(*rng);
    arr.CopyFromBuffer(v.data(), DType::kFloat32);
  } else if (EndsWith(name, "bias") || EndsWith(name, "beta") || EndsWith(name, "moving_mean")) {
    arr.Fill(0.0);
  } else if (EndsWith(name, "gamma") || EndsWith(name, "moving_var")) {
    arr.Fill(1.0);
  } else {
    SYMNET_THROW << "cannot initialize parameter '" << name << "': its name does not end in "
                 << "weight, bias, gamma, beta, moving_mean or moving_var";
  }
}

}  // namespace train
}  // namespace symnet
