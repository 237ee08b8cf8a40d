/*!
 * \brief adam_update and mp_adam_update (MXNet's): g = clip(rescale_grad*grad) + wd*w;
 *  mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2;
 *  w -= lr * mean / (sqrt(var) + epsilon). The Python optimizer folds bias correction into lr.
 */
#include "../operator_common.h"
#include "update_kernels.h"

namespace symnet {
namespace ops {

struct AdamParam : public dmlc::Parameter<AdamParam> {
  float lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdamParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay rate of the first moment.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay rate of the second moment.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Keeps the division finite.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(
        "Clips the rescaled gradient; negative means no clipping.");
    DMLC_DECLARE_FIELD(lazy_update).set_default(true).describe("Accepted for MXNet compatibility.");
  }
};
DMLC_REGISTER_PARAMETER(AdamParam);

namespace {

/*! \brief Inputs (weight, grad, mean, var[, weight32]); output the new weight. */
template <bool mp>
void AdamCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const AdamParam& p = Param<AdamParam>(attrs);
  const AdamHyper h{p.lr, p.beta1, p.beta2, p.epsilon, p.wd, p.rescale_grad, p.clip_gradient};
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, W, {
    if constexpr (mp) {
      AdamStep<W, float>(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<float>(),
                         in[3].dptr<float>(), in[4].dptr<float>(), out[0].dptr<W>(), h);
    } else {
      AdamStep<W, W>(in[0].Size(), in[0].dptr<W>(), in[1].dptr<W>(), in[2].dptr<W>(),
                     in[3].dptr<W>(), nullptr, out[0].dptr<W>(), h);
    }
  });
}

template <bool mp>
bool AdamType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  const DType w = (*in)[0];
  if (w == DType::kUnknown) return false;
  AssignType(in, 1, w, true);
  for (size_t i = 2; i < in->size(); ++i) AssignType(in, i, mp ? DType::kFloat32 : w, true);
  AssignType(out, 0, w, false);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(adam_update)
    .describe("Adam update; mean and var are updated in place.")
    .set_num_inputs(4)
    .set_attr_parser(ParamParser<AdamParam>)
    .add_arguments(ParamDocs<AdamParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"weight", "grad", "mean", "var"};
                               })
    .set_attr<FMutateInputs>("FMutateInputs", [](const NodeAttrs&) { return std::vector<uint32_t>{2, 3}; })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", AdamType<false>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", AdamCompute<false>);

SYMNET_REGISTER_OP(mp_adam_update)
    .describe("Multi-precision Adam: float32 mean, var and master weight32, updated in place; "
              "the 16-bit weight receives the rounded master weight.")
    .set_num_inputs(5)
    .set_attr_parser(ParamParser<AdamParam>)
    .add_arguments(ParamDocs<AdamParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"weight", "grad", "mean", "var",
                                                                 "weight32"};
                               })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) { return std::vector<uint32_t>{2, 3, 4}; })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", AdamType<true>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", AdamCompute<true>);

}  // namespace ops
}  // namespace symnet
