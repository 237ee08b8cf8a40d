/*!
 * \brief Typed C++ helpers for tensor ops (products, clipping, shape and slicing), part of
 *  symnet/ops.h; like the others they write only parameters that differ from MXNet's defaults.
 */
#ifndef SYMNET_OPS_TENSOR_H_
#define SYMNET_OPS_TENSOR_H_

#include <optional>
#include <string>

#include "symnet/operator_builder.h"

namespace symnet {
namespace op {

/*! \brief Matrix product of the last axis of a with the first of b (transposes as asked). */
inline Symbol dot(const Symbol& a, const Symbol& b, const std::string& name = "",
                  bool transpose_a = false, bool transpose_b = false) {
  Operator o("dot");
  if (transpose_a) o.SetParam("transpose_a", true);
  if (transpose_b) o.SetParam("transpose_b", true);
  return o(a)(b).CreateSymbol(name);
}
/*! \brief Batched matrix product of (B, M, K) and (B, K, N). */
inline Symbol batch_dot(const Symbol& a, const Symbol& b, const std::string& name = "",
                        bool transpose_a = false, bool transpose_b = false) {
  Operator o("batch_dot");
  if (transpose_a) o.SetParam("transpose_a", true);
  if (transpose_b) o.SetParam("transpose_b", true);
  return o(a)(b).CreateSymbol(name);
}
inline Symbol clip(const Symbol& data, double a_min, double a_max, const std::string& name = "") {
  return Operator("clip")
      .SetParam("a_min", a_min)
      .SetParam("a_max", a_max)
      .SetInput("data", data)
      .CreateSymbol(name);
}
inline Symbol elemwise_add(const Symbol& a, const Symbol& b, const std::string& name = "") {
  return Operator("elemwise_add")(a)(b).CreateSymbol(name);
}
/*! \brief Permutes the axes (an unknown Shape() reverses them, as MXNet's default). */
inline Symbol transpose(const Symbol& data, const Shape& axes = Shape(),
                        const std::string& name = "") {
  Operator o("transpose");
  if (axes.ndim_known()) o.SetParam("axes", axes);
  return o.SetInput("data", data).CreateSymbol(name);
}
inline Symbol expand_dims(const Symbol& data, int axis, const std::string& name = "") {
  return Operator("expand_dims").SetParam("axis", axis).SetInput("data", data).CreateSymbol(name);
}
/*! \brief Elements [begin, end) along `axis`; no end means "to the end" (MXNet's None). */
inline Symbol slice_axis(const Symbol& data, int axis, int begin, std::optional<int> end,
                         const std::string& name = "") {
  Operator o("slice_axis");
  o.SetParam("axis", axis).SetParam("begin", begin);
  o.SetParam("end", end ? std::to_string(*end) : std::string("None"));
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief num_outputs equal parts along `axis` (MXNet's split); a multi-output symbol. */
inline Symbol SliceChannel(const Symbol& data, int num_outputs, int axis = 1,
                           bool squeeze_axis = false, const std::string& name = "") {
  Operator o("SliceChannel");
  o.SetParam("num_outputs", num_outputs);
  if (axis != 1) o.SetParam("axis", axis);
  if (squeeze_axis) o.SetParam("squeeze_axis", true);
  return o.SetInput("data", data).CreateSymbol(name);
}

}  // namespace op
}  // namespace symnet

#endif  // SYMNET_OPS_TENSOR_H_
