/*!
 * \brief SGD update ops (MXNet's): sgd_update, sgd_mom_update and their multi-precision forms
 *  mp_sgd_update, mp_sgd_mom_update, which keep a float32 master weight (and momentum) for a
 *  16-bit weight: mom = momentum*mom - lr*wd*w32 - lr*clip(rescale_grad*g); w32 += mom;
 *  weight = cast(w32).
 */
#include "../operator_common.h"
#include "update_kernels.h"

namespace symnet {
namespace ops {

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("The decay rate of momentum estimates.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(
        "Clips the rescaled gradient to [-clip_gradient, clip_gradient]; negative means no clipping.");
    DMLC_DECLARE_FIELD(lazy_update).set_default(true).describe(
        "Accepted for MXNet compatibility (only dense arrays exist here).");
  }
};
DMLC_REGISTER_PARAMETER(SGDParam);

namespace {

SGDHyper Hyper(const SGDParam& p) { return {p.lr, p.wd, p.momentum, p.rescale_grad, p.clip_gradient}; }

/*! \brief Inputs (weight, grad[, mom][, weight32]); output the new weight. nag: Nesterov. */
template <bool with_mom, bool mp, bool nag = false>
void SGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const SGDHyper h = Hyper(Param<SGDParam>(attrs));
  const int64_t n = in[0].Size();
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    if constexpr (nag) {
      static_assert(with_mom, "Nesterov needs a momentum buffer");
      if constexpr (mp) {
        NAGStep<W, float>(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<float>(), in[3].dptr<float>(),
                          out[0].dptr<W>(), h);
      } else {
        NAGStep<W, W>(n, in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(), nullptr, out[0].dptr<W>(), h);
      }
    } else if constexpr (mp) {
      float* mom = with_mom ? in[2].dptr<float>() : nullptr;
      SGDStep<W, float>(n, in[0].dptr<W>(), in[1].dptr<W>(), mom, in[with_mom ? 3 : 2].dptr<float>(),
                        out[0].dptr<W>(), h);
    } else {
      SGDStep<W, W>(n, in[0].dptr<W>(), in[1].dptr<W>(), with_mom ? in[2].dptr<W>() : nullptr,
                    nullptr, out[0].dptr<W>(), h);
    }
  });
}

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

#define SYMNET_REGISTER_SGD(NAME, NIN, MOM, MP, NAG, DOC, ...)                             \
  SYMNET_REGISTER_OP(NAME)                                                                 \
      .describe(DOC)                                                                       \
      .set_num_inputs(NIN)                                                                 \
      .set_attr_parser(ParamParser<SGDParam>)                                              \
      .add_arguments(ParamDocs<SGDParam>())                                                \
      .set_attr<FListInputNames>("FListInputNames",                                        \
                                 [](const NodeAttrs&) {                                    \
                                   return std::vector<std::string>{__VA_ARGS__};           \
                                 })                                                        \
      .set_attr<FMutateInputs>("FMutateInputs", MutateFrom2)                               \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                                 \
      .set_attr<FInferType>("FInferType", SGDType<MP>)                                     \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                          \
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
SYMNET_REGISTER_SGD(nag_mom_update, 3, true, false, true,
                    "Nesterov momentum: g = clip(rescale_grad*grad) + wd*weight; "
                    "mom = momentum*mom + g; weight -= lr*(g + momentum*mom). mom is updated in place.",
                    "weight", "grad", "mom");
SYMNET_REGISTER_SGD(mp_nag_mom_update, 4, true, true, true,
                    "Multi-precision Nesterov momentum: float32 momentum and master weight, updated "
                    "in place; the 16-bit weight receives the rounded master weight.",
                    "weight", "grad", "mom", "weight32");

}  // namespace ops
}  // namespace symnet
