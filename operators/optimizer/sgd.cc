/*!
 * \brief SGD update ops (MXNet's): sgd_update, sgd_mom_update and their multi-precision forms
 *  mp_sgd_update, mp_sgd_mom_update, which keep a float32 master weight (and momentum) for a
 *  16-bit weight: mom = momentum*mom - lr*wd*w32 - lr*clip(rescale_grad*g); w32 += mom;
 *  weight = cast(w32).
 */
#include "sgd.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SGDParam);

namespace {

/*! \brief Types: weight and grad share a dtype; momentum and master weight are float32 for mp. */
template <bool mp>
bool SGDType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  const DType w = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  if (w == DType::kUnknown) return false;
  AssignType(in, 0, w, true);
  AssignType(in, 1, w, true);
  for (size_t i = 2; i < in->size(); ++i) AssignType(in, i, mp ? DType::kFloat32 : w, true);
  AssignType(out, 0, w, false);
  return true;
}

std::vector<uint32_t> MutateFrom2(const NodeAttrs& a) {
  std::vector<uint32_t> v;
  for (uint32_t i = 2; i < a.op->NumInputs(a); ++i) v.push_back(i);
  return v;
}

}  // namespace

#define SYMNET_REGISTER_SGD(NAME, NIN, MOM, MP, NAG, DOC, ...)                    \
  SYMNET_REGISTER_OP(NAME)                                                        \
      .describe(DOC)                                                              \
      .set_num_inputs(NIN)                                                        \
      .set_attr_parser(ParamParser<SGDParam>)                                     \
      .add_arguments(ParamDocs<SGDParam>())                                       \
      .set_attr<FListInputNames>(                                                 \
          "FListInputNames",                                                      \
          [](const NodeAttrs&) { return std::vector<std::string>{__VA_ARGS__}; }) \
      .set_attr<FMutateInputs>("FMutateInputs", MutateFrom2)                      \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                        \
      .set_attr<FInferType>("FInferType", SGDType<MP>)                            \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                 \
      .set_attr<FCompute>("FCompute<cpu>", SGDCompute<MOM, MP, NAG>)

SYMNET_REGISTER_SGD(sgd_update, 2, false, false, false,
                    "SGD: weight = (1 - lr*wd) * weight - lr * clip(rescale_grad * grad).",
                    "weight", "grad");
SYMNET_REGISTER_SGD(sgd_mom_update, 3, true, false, false,
                    "SGD with momentum: mom = momentum*mom - lr*wd*weight - "
                    "lr*clip(rescale_grad*grad); weight += mom. mom is updated in place.",
                    "weight", "grad", "mom");
SYMNET_REGISTER_SGD(mp_sgd_update, 3, false, true, false,
                    "Multi-precision SGD: updates the float32 master weight weight32 (in place) "
                    "and writes its rounding to the 16-bit weight.",
                    "weight", "grad", "weight32");
SYMNET_REGISTER_SGD(mp_sgd_mom_update, 4, true, true, false,
                    "Multi-precision SGD with momentum: float32 momentum and master weight, "
                    "updated in place; the 16-bit weight receives the rounded master weight.",
                    "weight", "grad", "mom", "weight32");
SYMNET_REGISTER_SGD(
    nag_mom_update, 3, true, false, true,
    "Nesterov momentum: g = clip(rescale_grad*grad) + wd*weight; "
    "mom = momentum*mom + g; weight -= lr*(g + momentum*mom). mom is updated in place.",
    "weight", "grad", "mom");
SYMNET_REGISTER_SGD(
    mp_nag_mom_update, 4, true, true, true,
    "Multi-precision Nesterov momentum: float32 momentum and master weight, updated "
    "in place; the 16-bit weight receives the rounded master weight.",
    "weight", "grad", "mom", "weight32");

}  // namespace ops
}  // namespace symnet
