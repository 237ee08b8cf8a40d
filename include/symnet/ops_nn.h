/*!
 * \brief Typed C++ helpers for the layer ops (convolution, pooling, norms, dropout, embedding,
 *  RNN, ...), part of symnet/ops.h. As there, a helper writes only the parameters that differ
 *  from MXNet's defaults, so a network built in C++ serialises to the JSON MXNet's Python writes
 *  for the same calls (tests/cpp/core/ops_helpers_test.cc checks it against MXNet 1.9.1's file).
 *  An unknown Shape() means "MXNet's default".
 */
#ifndef SYMNET_OPS_NN_H_
#define SYMNET_OPS_NN_H_

#include <string>
#include <vector>

#include "symnet/operator_builder.h"

namespace symnet {
namespace op {

namespace detail {
inline void SetShape(Operator* o, const char* key, const Shape& s) {
  if (s.ndim_known()) o->SetParam(key, s);
}
}  // namespace detail

/*! \brief num_filter filters of size `kernel`; weight and bias become <name>_weight/_bias. */
inline Symbol Convolution(const Symbol& data, int num_filter, const Shape& kernel,
                          const Shape& stride = Shape(), const Shape& pad = Shape(),
                          const std::string& name = "", bool no_bias = false, int num_group = 1,
                          const Shape& dilate = Shape()) {
  Operator o("Convolution");
  o.SetParam("kernel", kernel).SetParam("num_filter", num_filter);
  detail::SetShape(&o, "stride", stride);
  detail::SetShape(&o, "pad", pad);
  detail::SetShape(&o, "dilate", dilate);
  if (num_group != 1) o.SetParam("num_group", num_group);
  if (no_bias) o.SetParam("no_bias", true);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief The transposed convolution; as in MXNet it has no bias unless no_bias is false. */
inline Symbol Deconvolution(const Symbol& data, int num_filter, const Shape& kernel,
                            const Shape& stride = Shape(), const Shape& pad = Shape(),
                            const std::string& name = "", bool no_bias = true, int num_group = 1,
                            const Shape& adj = Shape(), const Shape& target_shape = Shape()) {
  Operator o("Deconvolution");
  o.SetParam("kernel", kernel).SetParam("num_filter", num_filter);
  detail::SetShape(&o, "stride", stride);
  detail::SetShape(&o, "pad", pad);
  detail::SetShape(&o, "adj", adj);
  detail::SetShape(&o, "target_shape", target_shape);
  if (num_group != 1) o.SetParam("num_group", num_group);
  if (!no_bias) o.SetParam("no_bias", false);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief pool_type: max, avg, sum or lp; global_pool ignores the kernel's size. */
inline Symbol Pooling(const Symbol& data, const Shape& kernel, const std::string& pool_type = "max",
                      const Shape& stride = Shape(), const Shape& pad = Shape(),
                      const std::string& name = "", bool global_pool = false,
                      const std::string& pooling_convention = "valid") {
  Operator o("Pooling");
  detail::SetShape(&o, "kernel", kernel);
  o.SetParam("pool_type", pool_type);
  detail::SetShape(&o, "stride", stride);
  detail::SetShape(&o, "pad", pad);
  if (global_pool) o.SetParam("global_pool", true);
  if (pooling_convention != "valid") o.SetParam("pooling_convention", pooling_convention);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief BatchNorm with MXNet's defaults (fix_gamma=True, eps=1e-3, momentum=0.9); its moving
 *  statistics become the auxiliary states <name>_moving_mean/_moving_var. */
inline Symbol BatchNorm(const Symbol& data, const std::string& name = "", bool fix_gamma = true,
                        double eps = 1e-3, double momentum = 0.9) {
  Operator o("BatchNorm");
  if (!fix_gamma) o.SetParam("fix_gamma", false);
  if (eps != 1e-3) o.SetParam("eps", eps);
  if (momentum != 0.9) o.SetParam("momentum", momentum);
  return o.SetInput("data", data).CreateSymbol(name);
}
inline Symbol LayerNorm(const Symbol& data, const std::string& name = "", int axis = -1,
                        double eps = 1e-5) {
  Operator o("LayerNorm");
  if (axis != -1) o.SetParam("axis", axis);
  if (eps != 1e-5) o.SetParam("eps", eps);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief Local response normalisation across `nsize` channels (AlexNet, GoogLeNet). */
inline Symbol LRN(const Symbol& data, int nsize, const std::string& name = "", double alpha = 1e-4,
                  double beta = 0.75, double knorm = 2.0) {
  Operator o("LRN");
  o.SetParam("nsize", nsize);
  if (alpha != 1e-4) o.SetParam("alpha", alpha);
  if (beta != 0.75) o.SetParam("beta", beta);
  if (knorm != 2.0) o.SetParam("knorm", knorm);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief Drops with probability p in training (inverted scaling), identity in inference. */
inline Symbol Dropout(const Symbol& data, double p = 0.5, const std::string& name = "") {
  Operator o("Dropout");
  if (p != 0.5) o.SetParam("p", p);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief act_type: leaky, elu, prelu (a learned <name>_gamma), selu, gelu, rrelu. */
inline Symbol LeakyReLU(const Symbol& data, const std::string& act_type = "leaky",
                        double slope = 0.25, const std::string& name = "") {
  Operator o("LeakyReLU");
  if (act_type != "leaky") o.SetParam("act_type", act_type);
  if (slope != 0.25) o.SetParam("slope", slope);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief Rows of a (input_dim, output_dim) weight picked by the indices in data. */
inline Symbol Embedding(const Symbol& data, int input_dim, int output_dim,
                        const std::string& name = "") {
  return Operator("Embedding")
      .SetParam("input_dim", input_dim)
      .SetParam("output_dim", output_dim)
      .SetInput("data", data)
      .CreateSymbol(name);
}
/*! \brief The fused RNN (mode lstm, gru, rnn_tanh, rnn_relu) over time-major data; parameters
 *  and initial states become <name>_parameters, <name>_state (and _state_cell for LSTM). */
inline Symbol RNN(const Symbol& data, int state_size, int num_layers, const std::string& mode,
                  const std::string& name = "", bool bidirectional = false,
                  bool state_outputs = false, double p = 0.0) {
  Operator o("RNN");
  o.SetParam("state_size", state_size).SetParam("num_layers", num_layers).SetParam("mode", mode);
  if (bidirectional) o.SetParam("bidirectional", true);
  if (state_outputs) o.SetParam("state_outputs", true);
  if (p != 0.0) o.SetParam("p", p);
  return o.SetInput("data", data).CreateSymbol(name);
}
/*! \brief Joins the inputs along `dim` (num_args is set from the count). */
inline Symbol Concat(const std::vector<Symbol>& inputs, int dim = 1, const std::string& name = "") {
  Operator o("Concat");
  o.SetParam("dim", dim);
  for (const auto& s : inputs) o.PushInput(s);
  return o.CreateSymbol(name);
}
/*! \brief A loss head from any expression: its gradient is grad_scale (no head gradient). */
inline Symbol MakeLoss(const Symbol& data, const std::string& name = "") {
  return Operator("MakeLoss").SetInput("data", data).CreateSymbol(name);
}

}  // namespace op
}  // namespace symnet

#endif  // SYMNET_OPS_NN_H_
