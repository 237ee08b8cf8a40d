/*! \brief Parameter formatting for the C++ Operator builder (its Invoke: src/imperative/). */
#include "symnet/operator_builder.h"

#include "symbol_util.h"

namespace symnet {

std::string FormatParam(bool v) { return v ? "True" : "False"; }
std::string FormatParam(double v) { return FormatScalar(v); }
std::string FormatParam(const Shape& v) { return v.ToString(); }

}  // namespace symnet
