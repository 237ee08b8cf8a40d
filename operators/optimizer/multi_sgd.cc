/*!
 * \brief Fused SGD updates of many weights in one call (MXNet's multi_sgd_update,
 *  multi_sgd_mom_update, multi_mp_sgd_update, multi_mp_sgd_mom_update), with per-weight lrs
 *  and wds. Inputs repeat per weight: (weight, grad[, mom][, weight32]); outputs are the new
 *  weights.
 */
#include "multi_sgd.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(MultiSGDParam);

namespace {

template <bool with_mom, bool mp>
bool MultiShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  constexpr int k = Stride<with_mom, mp>();
  bool all = true;
  for (size_t w = 0; w < out->size(); ++w) {
    Shape s = (*in)[w * k];
    for (int j = 0; j < k; ++j) ShapeAssign(&s, (*in)[w * k + j]);
    for (int j = 0; j < k; ++j) AssignInShape(in, w * k + j, s);
    AssignOutShape(out, w, s);
    all = all && s.is_known();
  }
  return all;
}

template <bool with_mom, bool mp>
bool MultiType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  constexpr int k = Stride<with_mom, mp>();
  bool all = true;
  for (size_t w = 0; w < out->size(); ++w) {
    const DType t = (*in)[w * k];
    if (t == DType::kUnknown) {
      all = false;
      continue;
    }
    AssignType(in, w * k + 1, t, true);
    for (int j = 2; j < k; ++j) AssignType(in, w * k + j, mp ? DType::kFloat32 : t, true);
    AssignType(out, w, t, false);
  }
  return all;
}

template <bool with_mom, bool mp>
std::vector<uint32_t> MultiMutate(const NodeAttrs& a) {
  constexpr int k = Stride<with_mom, mp>();
  std::vector<uint32_t> v;
  for (int w = 0; w < Param<MultiSGDParam>(a).num_weights; ++w)
    for (int j = 2; j < k; ++j) v.push_back(w * k + j);
  return v;
}

template <bool with_mom, bool mp>
std::vector<std::pair<int, int>> MultiInplace(const NodeAttrs& a) {
  constexpr int k = Stride<with_mom, mp>();
  std::vector<std::pair<int, int>> v;
  for (int w = 0; w < Param<MultiSGDParam>(a).num_weights; ++w) v.emplace_back(w * k, w);
  return v;
}

}  // namespace

#define SYMNET_REGISTER_MULTI_SGD(NAME, MOM, MP, DOC)                                         \
  SYMNET_REGISTER_OP(NAME)                                                                    \
      .describe(DOC)                                                                          \
      .set_key_var_num_args("num_weights")                                                    \
      .set_num_inputs([](const NodeAttrs& a) -> uint32_t {                                    \
        return Param<MultiSGDParam>(a).num_weights * Stride<MOM, MP>();                       \
      })                                                                                      \
      .set_num_outputs(                                                                       \
          [](const NodeAttrs& a) -> uint32_t { return Param<MultiSGDParam>(a).num_weights; }) \
      .set_attr_parser(ParamParser<MultiSGDParam>)                                            \
      .add_arguments(ParamDocs<MultiSGDParam>())                                              \
      .add_argument("data", "NDArray-or-Symbol[]", "Per weight: the update's input arrays.")  \
      .set_attr<FMutateInputs>("FMutateInputs", MultiMutate<MOM, MP>)                         \
      .set_attr<FInferShape>("FInferShape", MultiShape<MOM, MP>)                              \
      .set_attr<FInferType>("FInferType", MultiType<MOM, MP>)                                 \
      .set_attr<FInplaceOption>("FInplaceOption", MultiInplace<MOM, MP>)                      \
      .set_attr<FCompute>("FCompute<cpu>", MultiSGDCompute<MOM, MP>)

SYMNET_REGISTER_MULTI_SGD(multi_sgd_update, false, false,
                          "Fused SGD over many weights: inputs (weight, grad) per weight.");
SYMNET_REGISTER_MULTI_SGD(multi_sgd_mom_update, true, false,
                          "Fused momentum SGD over many weights: inputs (weight, grad, mom).");
SYMNET_REGISTER_MULTI_SGD(multi_mp_sgd_update, false, true,
                          "Fused multi-precision SGD: inputs (weight, grad, weight32).");
SYMNET_REGISTER_MULTI_SGD(
    multi_mp_sgd_mom_update, true, true,
    "Fused multi-precision momentum SGD: inputs (weight, grad, mom, weight32).");

}  // namespace ops
}  // namespace symnet
