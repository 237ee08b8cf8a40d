/*!
 * \brief Typed C++ helpers for the common ops, so a network reads like its Python version:
 *  auto fc1 = op::FullyConnected(data, 128, "fc1"); auto a1 = op::Activation(fc1, "relu", "relu1");
 *  Every helper also exists generically as Operator("<name>").
 */
#ifndef SYMNET_OPS_H_
#define SYMNET_OPS_H_

#include <string>

#include "symnet/operator_builder.h"
#include "symnet/ops_nn.h"      // layers: Convolution, Pooling, BatchNorm, RNN, ...
#include "symnet/ops_tensor.h"  // dot, clip, transpose, slicing, ...

namespace symnet {
namespace op {

// The helpers set only parameters that differ from their defaults, as Python scripts do, so
// that symbols built in C++ and in Python serialise to the same JSON.

/*! \brief Y = X W^T + b; weight and bias variables are created as <name>_weight, <name>_bias. */
inline Symbol FullyConnected(const Symbol& data, int num_hidden, const std::string& name = "",
                             bool no_bias = false, bool flatten = true) {
  Operator o("FullyConnected");
  o.SetParam("num_hidden", num_hidden);
  if (no_bias) o.SetParam("no_bias", true);
  if (!flatten) o.SetParam("flatten", false);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief act_type: relu, sigmoid, tanh, softrelu, softsign. */
inline Symbol Activation(const Symbol& data, const std::string& act_type,
                         const std::string& name = "") {
  return Operator("Activation")
      .SetParam("act_type", act_type)
      .SetInput("data", data)
      .CreateSymbol(name);
}
/*! \brief Softmax with cross-entropy gradient; the label variable is <name>_label unless given. */
inline Symbol SoftmaxOutput(const Symbol& data, const std::string& name = "",
                            const Symbol* label = nullptr, double grad_scale = 1.0,
                            const std::string& normalization = "null") {
  Operator o("SoftmaxOutput");
  if (grad_scale != 1.0) o.SetParam("grad_scale", grad_scale);
  if (normalization != "null") o.SetParam("normalization", normalization);
  o.SetInput("data", data);
  if (label) o.SetInput("label", *label);
  return o.CreateSymbol(name);
}
inline Symbol LinearRegressionOutput(const Symbol& data, const std::string& name = "",
                                     const Symbol* label = nullptr) {
  Operator o("LinearRegressionOutput");
  o.SetInput("data", data);
  if (label) o.SetInput("label", *label);
  return o.CreateSymbol(name);
}
inline Symbol Flatten(const Symbol& data, const std::string& name = "") {
  return Operator("Flatten").SetInput("data", data).CreateSymbol(name);
}
inline Symbol Reshape(const Symbol& data, const Shape& shape, const std::string& name = "") {
  return Operator("Reshape").SetParam("shape", shape).SetInput("data", data).CreateSymbol(name);
}
inline Symbol Cast(const Symbol& data, DType dtype, const std::string& name = "") {
  return Operator("Cast").SetParam("dtype", dtype).SetInput("data", data).CreateSymbol(name);
}
inline Symbol softmax(const Symbol& data, int axis = -1, const std::string& name = "") {
  Operator o("softmax");
  if (axis != -1) o.SetParam("axis", axis);
  return o.SetInput("data", data).CreateSymbol(name);
}
inline Symbol log_softmax(const Symbol& data, int axis = -1, const std::string& name = "") {
  Operator o("log_softmax");
  if (axis != -1) o.SetParam("axis", axis);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief Sum over `axis` (an unknown Shape() means all axes). */
inline Symbol sum(const Symbol& data, const Shape& axis = Shape(), bool keepdims = false,
                  const std::string& name = "") {
  Operator o("sum");
  if (axis.ndim_known()) o.SetParam("axis", axis);
  if (keepdims) o.SetParam("keepdims", true);
  return o.SetInput("data", data).CreateSymbol(name);
}
inline Symbol mean(const Symbol& data, const Shape& axis = Shape(), bool keepdims = false,
                   const std::string& name = "") {
  Operator o("mean");
  if (axis.ndim_known()) o.SetParam("axis", axis);
  if (keepdims) o.SetParam("keepdims", true);
  return o.SetInput("data", data).CreateSymbol(name);
}
inline Symbol BlockGrad(const Symbol& data, const std::string& name = "") {
  return Operator("BlockGrad").SetInput("data", data).CreateSymbol(name);
}
inline Symbol broadcast_add(const Symbol& a, const Symbol& b, const std::string& name = "") {
  return Operator("broadcast_add")(a)(b).CreateSymbol(name);
}
inline Symbol broadcast_mul(const Symbol& a, const Symbol& b, const std::string& name = "") {
  return Operator("broadcast_mul")(a)(b).CreateSymbol(name);
}

}  // namespace op
}  // namespace symnet

#endif  // SYMNET_OPS_H_
