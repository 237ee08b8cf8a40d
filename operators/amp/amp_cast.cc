/*!
 * \brief amp_cast and amp_multicast: the casts the AMP rewrite inserts. Only float32, float16
 *  and bfloat16 are converted; other dtypes pass through. Gradients cast back to the dtype of
 *  the forward input.
 */
#include <cstring>

#include "../tensor/elemwise_kernels.h"

namespace symnet {
namespace ops {

struct AmpCastParam : public dmlc::Parameter<AmpCastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(AmpCastParam) {
    DMLC_DECLARE_FIELD(dtype).SYMNET_DTYPE_ENUM(dtype).describe("Output dtype for float inputs.");
  }
};
DMLC_REGISTER_PARAMETER(AmpCastParam);

struct AmpMultiCastParam : public dmlc::Parameter<AmpMultiCastParam> {
  int num_outputs;
  bool cast_narrow;
  DMLC_DECLARE_PARAMETER(AmpMultiCastParam) {
    DMLC_DECLARE_FIELD(num_outputs).set_lower_bound(1).describe("Number of inputs (and outputs).");
    DMLC_DECLARE_FIELD(cast_narrow)
        .set_default(false)
        .describe("Cast to the narrowest float dtype among the inputs instead of the widest.");
  }
};
DMLC_REGISTER_PARAMETER(AmpMultiCastParam);

/*! \brief The dtypes AMP converts between. */
bool IsAmpFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16 ||
         t == DType::kFloat64;
}

namespace {

// An input nothing else types is a parameter without a declared dtype: MXNet's default real
// type, float32 (a cast cannot tell its input dtype from its output).
bool AmpCastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if ((*in)[0] == DType::kUnknown) (*in)[0] = DType::kFloat32;
  const DType in_t = (*in)[0];
  const DType target = static_cast<DType>(Param<AmpCastParam>(attrs).dtype);
  AssignType(out, 0, IsAmpFloat(in_t) ? target : in_t, false);
  return true;
}

bool MultiCastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const bool narrow = Param<AmpMultiCastParam>(attrs).cast_narrow;
  DType pick = DType::kUnknown;
  for (DType& t : *in) {
    if (t == DType::kUnknown) t = DType::kFloat32;  // see AmpCastType
    if (!IsAmpFloat(t)) continue;
    const int w = FloatWidthRank(t), wp = FloatWidthRank(pick);
    if (pick == DType::kUnknown || (narrow ? w < wp : w > wp)) pick = t;
  }
  for (size_t i = 0; i < in->size(); ++i)
    AssignType(out, i, IsAmpFloat((*in)[i]) ? pick : (*in)[i], false);
  return true;
}

uint32_t NumCastOutputs(const NodeAttrs& a) {
  return static_cast<uint32_t>(Param<AmpMultiCastParam>(a).num_outputs);
}

/*! \brief Casts in place are identities when nothing changes: output i may reuse input i. */
std::vector<std::pair<int, int>> EachInPlace(const NodeAttrs& a) {
  std::vector<std::pair<int, int>> v;
  for (uint32_t i = 0; i < a.op->NumOutputs(a); ++i) v.emplace_back(i, i);
  return v;
}

}  // namespace

SYMNET_REGISTER_OP(amp_cast)
    .describe(
        "Casts float32/float16/bfloat16 data to `dtype`; other dtypes pass through "
        "unchanged. Inserted by the AMP rewrite.")
    .set_attr_parser(ParamParser<AmpCastParam>)
    .add_arguments(ParamDocs<AmpCastParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", AmpCastType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    // same-size casts (the identity, float16<->bfloat16) convert element by element in place
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_amp_cast"))
    .set_attr<FCompute>("FCompute<cpu>", ConvertCompute) SYMNET_ALSO_GPU(ConvertCompute);

SYMNET_REGISTER_OP(_backward_amp_cast)
    .set_attr_parser(ParamParser<AmpCastParam>)
    .add_arguments(ParamDocs<AmpCastParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", OutputTypeKnown)
    .set_attr<FCompute>("FCompute<cpu>", ConvertCompute) SYMNET_ALSO_GPU(ConvertCompute);

SYMNET_REGISTER_OP(amp_multicast)
    .describe(
        "Casts every float input to the widest float dtype among them (the narrowest with "
        "cast_narrow); other dtypes pass through. Inserted by the AMP rewrite.")
    .set_key_var_num_args("num_outputs")
    .set_num_inputs(NumCastOutputs)
    .set_num_outputs(NumCastOutputs)
    .set_attr_parser(ParamParser<AmpMultiCastParam>)
    .add_arguments(ParamDocs<AmpMultiCastParam>())
    .add_argument("data", "NDArray-or-Symbol[]", "The inputs.")
    .set_attr<FInferShape>("FInferShape",
                           [](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
                             bool all = true;
                             for (size_t i = 0; i < in->size(); ++i) {
                               ShapeAssign(&(*out)[i], (*in)[i]);
                               ShapeAssign(&(*in)[i], (*out)[i]);
                               all = all && (*out)[i].is_known();
                             }
                             return all;
                           })
    .set_attr<FInferType>("FInferType", MultiCastType)
    .set_attr<FInplaceOption>("FInplaceOption", EachInPlace)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_amp_multicast"))
    .set_attr<FCompute>("FCompute<cpu>", ConvertCompute) SYMNET_ALSO_GPU(ConvertCompute);

SYMNET_REGISTER_OP(_backward_amp_multicast)
    .set_num_inputs(NumCastOutputs)
    .set_num_outputs(NumCastOutputs)
    .set_attr_parser(ParamParser<AmpMultiCastParam>)
    .add_arguments(ParamDocs<AmpMultiCastParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FInferShape>("FInferShape",
                           [](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
                             for (size_t i = 0; i < in->size(); ++i)
                               ShapeAssign(&(*out)[i], (*in)[i]);
                             return true;
                           })
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs&, std::vector<DType>*, std::vector<DType>* out) {
                            for (DType t : *out)
                              if (t == DType::kUnknown) return false;
                            return true;
                          })
    .set_attr<FCompute>("FCompute<cpu>", ConvertCompute) SYMNET_ALSO_GPU(ConvertCompute);

}  // namespace ops
}  // namespace symnet
