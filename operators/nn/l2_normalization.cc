/*!
 * \brief L2Normalization with MXNet 1.9.1's modes and defaults. MXNet's node also has a hidden
 *  second output (the norms) that no consumer reads; symnet's has one output and the backward
 *  recomputes the norms from x.
 */
#include "l2_normalization.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(L2NormalizationParam);

namespace {

const char* ModeName(int mode) {
  return mode == kL2Instance ? "instance" : mode == kL2Channel ? "channel" : "spatial";
}

bool L2NormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape d = (*in)[0];
  if (!d.is_known() && (*out)[0].is_known()) d = (*out)[0];
  if (!d.is_known()) return false;
  const int mode = Param<L2NormalizationParam>(attrs).mode;
  const int need = mode == kL2Instance ? 1 : 3;
  SYMNET_CHECK(d.ndim() >= need) << "L2Normalization mode='" << ModeName(mode) << "' expects data "
                                 << "of at least " << need << " dims, got shape " << d;
  AssignInShape(in, 0, d);
  AssignOutShape(out, 0, d);
  return true;
}

bool L2NormType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  SYMNET_CHECK(IsFloatType((*in)[0]))
      << "L2Normalization expects floating-point data, got " << DTypeName((*in)[0]);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(L2Normalization)
    .describe(
        "Divides x by sqrt(sum x^2 + eps), the sum over a sample (mode 'instance'), over the "
        "channels at each position ('channel'), or over each channel's positions ('spatial').")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<L2NormalizationParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data; axis 0 is the batch, axis 1 channels.")
    .add_arguments(ParamDocs<L2NormalizationParam>())
    .set_attr<FInferShape>("FInferShape", L2NormShape)
    .set_attr<FInferType>("FInferType", L2NormType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_L2Normalization"))
    .set_attr<FCompute>("FCompute<cpu>", L2NormForward<cpu>);

SYMNET_REGISTER_OP(_backward_L2Normalization)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<L2NormalizationParam>)
    .add_arguments(ParamDocs<L2NormalizationParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", L2NormBackward<cpu>);

}  // namespace ops
}  // namespace symnet
