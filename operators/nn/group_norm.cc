/*!
 * \brief GroupNorm with MXNet 1.9.1's semantics: the channels of each sample split into
 *  num_groups consecutive groups, each normalized over its channels and positions, then
 *  y = xhat * gamma[group] + beta[group]. gamma and beta have shape (num_groups,) as in MXNet
 *  1.9.1 (later MXNet versions use (C,)), so 1.9.1 parameter files load. Outputs (out, mean,
 *  std), the statistics shaped (N, num_groups); only out is visible unless output_mean_var.
 */
#include "group_norm.h"

#include "../stage_f32.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(GroupNormParam);

namespace {

void GroupNormParser(NodeAttrs* attrs) {
  ParamParser<GroupNormParam>(attrs);
  const int g = Param<GroupNormParam>(*attrs).num_groups;
  if (g < 1) throw dmlc::ParamError("num_groups must be at least 1, got " + std::to_string(g));
}

bool GroupNormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape d = (*in)[0];
  if (!d.is_known() && (*out)[0].is_known()) d = (*out)[0];
  if (!d.is_known()) return false;
  const int64_t g = Param<GroupNormParam>(attrs).num_groups;
  SYMNET_CHECK(d.ndim() >= 3) << "GroupNorm expects (N, C, spatial...) data of at least 3 dims, "
                              << "got shape " << d;
  SYMNET_CHECK(d[1] % g == 0) << "GroupNorm: the " << d[1] << " channels of data " << d
                              << " do not split into num_groups=" << g << " equal groups";
  AssignInShape(in, 0, d);
  AssignInShape(in, 1, Shape{g});
  AssignInShape(in, 2, Shape{g});
  AssignOutShape(out, 0, d);
  AssignOutShape(out, 1, Shape{d[0], g});
  AssignOutShape(out, 2, Shape{d[0], g});
  return true;
}

bool Is16Bit(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

void GroupNormForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (Is16Bit(in[0].dtype_)) return StagedF32Compute(GroupNormForward, attrs, ctx, in, req, out);
  NormForward<cpu>(GroupNormView(Param<GroupNormParam>(attrs), in[0].shape_), in, req, out);
}

/*! \brief Inputs (dy, x, gamma, mean, std); outputs (dx, dgamma, dbeta). */
void GroupNormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (Is16Bit(in[1].dtype_)) return StagedF32Compute(GroupNormBackward, attrs, ctx, in, req, out);
  NormBackward<cpu>(GroupNormView(Param<GroupNormParam>(attrs), in[1].shape_), in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(GroupNorm)
    .describe(
        "Group normalization of (N, C, spatial...) data: the channels split into num_groups "
        "groups, each normalized over its channels and positions, y = (x - mean) / sqrt(var + "
        "eps) * gamma + beta with gamma and beta per group (shape (num_groups,)). With "
        "output_mean_var, also the mean and the std (sqrt(var + eps)), shaped (N, num_groups).")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(GroupNormParser)
    .add_argument("data", "NDArray-or-Symbol", "Input data, (N, C, spatial...).")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale per group.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift per group.")
    .add_arguments(ParamDocs<GroupNormParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "gamma", "beta"};
                               })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "mean", "std"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs& a) -> uint32_t {
                                    return Param<GroupNormParam>(a).output_mean_var ? 3 : 1;
                                  })
    .set_attr<FInferShape>("FInferShape", GroupNormShape)
    .set_attr<FInferType>("FInferType", NormType("GroupNorm"))
    .set_attr<FGradient>("FGradient", NormGradient("_backward_GroupNorm"))
    .set_attr<FCompute>("FCompute<cpu>", GroupNormForward);

SYMNET_REGISTER_OP(_backward_GroupNorm)
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(GroupNormParser)
    .add_arguments(ParamDocs<GroupNormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", GroupNormBackward);

}  // namespace ops
}  // namespace symnet
