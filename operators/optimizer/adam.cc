/*!
 * \brief adam_update and mp_adam_update (MXNet's): g = clip(rescale_grad*grad) + wd*w;
 *  mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2;
 *  w -= lr * mean / (sqrt(var) + epsilon). The Python optimizer folds bias correction into lr.
 */
#include "adam.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(AdamParam);

namespace {

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
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) {
                               return std::vector<uint32_t>{2, 3};
                             })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", AdamType<false>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", AdamCompute<false>);

SYMNET_REGISTER_OP(mp_adam_update)
    .describe(
        "Multi-precision Adam: float32 mean, var and master weight32, updated in place; "
        "the 16-bit weight receives the rounded master weight.")
    .set_num_inputs(5)
    .set_attr_parser(ParamParser<AdamParam>)
    .add_arguments(ParamDocs<AdamParam>())
    .set_attr<FListInputNames>(
        "FListInputNames",
        [](const NodeAttrs&) {
          return std::vector<std::string>{"weight", "grad", "mean", "var", "weight32"};
        })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) {
                               return std::vector<uint32_t>{2, 3, 4};
                             })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", AdamType<true>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", AdamCompute<true>);

}  // namespace ops
}  // namespace symnet
