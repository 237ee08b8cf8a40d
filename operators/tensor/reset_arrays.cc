/*! \brief reset_arrays: zeroes many arrays in place in one call (MXNet's, no outputs). */
#include "reset_arrays.h"

#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ResetArraysParam);

void ResetArraysCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>&, const std::vector<TBlob>&) {
  for (const TBlob& b : in)
    if (b.Size() > 0) ZeroBlob(b);
}

namespace {

uint32_t NumArrays(const NodeAttrs& a) {
  return static_cast<uint32_t>(Param<ResetArraysParam>(a).num_arrays);
}

std::vector<uint32_t> MutateAll(const NodeAttrs& a) {
  std::vector<uint32_t> v(NumArrays(a));
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

// Nothing to infer: the arrays keep their own shapes and dtypes (no outputs).
bool AnyShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>*) {
  for (const Shape& s : *in)
    if (!s.is_known()) return false;
  return true;
}

bool AnyType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>*) {
  for (DType t : *in)
    if (t == DType::kUnknown) return false;
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(reset_arrays)
    .describe("Sets all the given arrays to zero, in place; the arrays may differ in dtype.")
    .set_key_var_num_args("num_arrays")
    .set_num_inputs(NumArrays)
    .set_num_outputs(0)
    .set_attr_parser(ParamParser<ResetArraysParam>)
    .add_arguments(ParamDocs<ResetArraysParam>())
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to reset.")
    .set_attr<FMutateInputs>("FMutateInputs", MutateAll)
    .set_attr<FInferShape>("FInferShape", AnyShape)
    .set_attr<FInferType>("FInferType", AnyType)
    .set_attr<FCompute>("FCompute<cpu>", ResetArraysCompute) SYMNET_ALSO_GPU(ResetArraysCompute);

}  // namespace ops
}  // namespace symnet
