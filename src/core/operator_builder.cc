/*! \brief Parameter formatting and imperative calls for the C++ Operator builder. */
#include "symnet/operator_builder.h"

#include "symbol_util.h"
#include "symnet/imperative.h"

namespace symnet {

std::string FormatParam(bool v) { return v ? "True" : "False"; }
std::string FormatParam(double v) { return FormatScalar(v); }
std::string FormatParam(const Shape& v) { return v.ToString(); }

std::vector<NDArray> Operator::Invoke(const std::vector<NDArray>& inputs,
                                      const std::vector<NDArray>& outputs) const {
  return symnet::Invoke(op_name_, params_, inputs, outputs);
}

}  // namespace symnet
