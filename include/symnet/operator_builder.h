/*!
 * \brief Generic op builder for C++:
 *  Operator("Convolution").SetParam("kernel", Shape{3, 3}).SetInput("data", x).CreateSymbol("c1")
 */
#ifndef SYMNET_OPERATOR_BUILDER_H_
#define SYMNET_OPERATOR_BUILDER_H_

#include <map>
#include <string>
#include <vector>

#include "symnet/ndarray.h"
#include "symnet/symbol.h"

namespace symnet {

/*! \brief Parameter values as MXNet writes them: True/False, (3, 3), 0.5, text as is. */
std::string FormatParam(bool v);
std::string FormatParam(double v);
std::string FormatParam(const Shape& v);
inline std::string FormatParam(float v) { return FormatParam(static_cast<double>(v)); }
inline std::string FormatParam(int v) { return std::to_string(v); }
inline std::string FormatParam(int64_t v) { return std::to_string(v); }
inline std::string FormatParam(const std::string& v) { return v; }
inline std::string FormatParam(const char* v) { return v; }
inline std::string FormatParam(DType v) { return DTypeName(v); }

class Operator {
 public:
  explicit Operator(const std::string& op_name) : op_name_(op_name) {}
  template <typename T>
  Operator& SetParam(const std::string& key, const T& value) {
    params_[key] = FormatParam(value);
    return *this;
  }
  /*! \brief A named input ("data", "weight", ...). */
  Operator& SetInput(const std::string& name, const Symbol& s) {
    named_[name] = s;
    return *this;
  }
  /*! \brief The next positional input. */
  Operator& PushInput(const Symbol& s) {
    positional_.push_back(s);
    return *this;
  }
  Operator& operator()(const Symbol& s) { return PushInput(s); }
  /*! \brief The symbol; missing inputs become variables "<name>_<input>". */
  Symbol CreateSymbol(const std::string& name = "") const {
    return Symbol::Create(op_name_, name, params_, positional_, named_);
  }
  /*! \brief Runs the op now on arrays (positional inputs). */
  std::vector<NDArray> Invoke(const std::vector<NDArray>& inputs,
                              const std::vector<NDArray>& outputs = {}) const;

 private:
  std::string op_name_;
  std::map<std::string, std::string> params_;
  std::vector<Symbol> positional_;
  std::map<std::string, Symbol> named_;
};

}  // namespace symnet

#endif  // SYMNET_OPERATOR_BUILDER_H_
