/*!
 * \brief InstanceNorm with MXNet 1.9.1's semantics: each sample's channel is normalized over its
 *  spatial positions, y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]. As in MXNet the node
 *  has hidden mean and var outputs, shaped (N, C), which the backward reuses. MXNet runs it in
 *  float32 only; symnet also in float64 and (staged on the CPU) in 16 bits, with all inputs and
 *  outputs in the data's dtype as LayerNorm and GroupNorm have them.
 */
#include "instance_norm.h"

#include "../stage_f32.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(InstanceNormParam);

namespace {

bool InstanceNormShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape d = (*in)[0];
  if (!d.is_known() && (*out)[0].is_known()) d = (*out)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 2) << "InstanceNorm expects (N, C, ...) data of at least 2 dims, got "
                              << "shape " << d;
  AssignInShape(in, 0, d);
  AssignInShape(in, 1, Shape{d[1]});
  AssignInShape(in, 2, Shape{d[1]});
  AssignOutShape(out, 0, d);
  AssignOutShape(out, 1, Shape{d[0], d[1]});
  AssignOutShape(out, 2, Shape{d[0], d[1]});
  return true;
}

bool Is16Bit(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

void InstanceNormForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (Is16Bit(in[0].dtype_)) return StagedF32Compute(InstanceNormForward, attrs, ctx, in, req, out);
  NormForward<cpu>(InstanceNormView(Param<InstanceNormParam>(attrs), in[0].shape_), in, req, out);
}

/*! \brief Inputs (dy, x, gamma, mean, var); outputs (dx, dgamma, dbeta). */
void InstanceNormBackward(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  if (Is16Bit(in[1].dtype_)) {
    return StagedF32Compute(InstanceNormBackward, attrs, ctx, in, req, out);
  }
  NormBackward<cpu>(InstanceNormView(Param<InstanceNormParam>(attrs), in[1].shape_), in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(InstanceNorm)
    .describe(
        "Instance normalization of (N, C, ...) data: each sample's channel is normalized over "
        "its positions, y = (x - mean) / sqrt(var + eps) * gamma + beta, gamma and beta per "
        "channel; the same in training and inference.")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<InstanceNormParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data, (N, C, spatial...).")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale per channel.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift per channel.")
    .add_arguments(ParamDocs<InstanceNormParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "gamma", "beta"};
                               })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "mean", "var"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs&) -> uint32_t { return 1; })
    .set_attr<FInferShape>("FInferShape", InstanceNormShape)
    .set_attr<FInferType>("FInferType", NormType("InstanceNorm"))
    .set_attr<FGradient>("FGradient", NormGradient("_backward_InstanceNorm"))
    .set_attr<FCompute>("FCompute<cpu>", InstanceNormForward);

SYMNET_REGISTER_OP(_backward_InstanceNorm)
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<InstanceNormParam>)
    .add_arguments(ParamDocs<InstanceNormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", InstanceNormBackward);

}  // namespace ops
}  // namespace symnet
