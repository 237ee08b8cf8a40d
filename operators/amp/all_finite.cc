/*!
 * \brief all_finite / multi_all_finite: one float32 flag, 1 when every element of every input is
 *  finite (no inf, no nan), else 0. With init_output=False the flag is only ever lowered, so
 *  several calls can AND into one output. Inputs may have different dtypes.
 */
#include "all_finite.h"

#include <cmath>

#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(AllFiniteParam);
DMLC_REGISTER_PARAMETER(MultiAllFiniteParam);

template <typename T>
bool AllFiniteTyped(const T* p, int64_t n) {
  int bad = 0;
#pragma omp parallel for reduction(| : bad) if (n >= kOmpMinWork)
  for (int64_t i = 0; i < n; ++i) bad |= !std::isfinite(static_cast<AccType<T>>(p[i]));
  return !bad;
}

/*! \brief Whether every element of a float blob is finite (other dtypes always are). */
bool BlobIsFinite(const TBlob& b) {
  bool ok = true;
  if (IsFloatType(b.dtype_)) {
    SYMNET_FLOAT_TYPE_SWITCH(b.dtype_, T, { ok = AllFiniteTyped(b.dptr<T>(), b.Size()); });
  }
  return ok;
}

namespace {

bool FlagShape(const NodeAttrs&, std::vector<Shape>*, std::vector<Shape>* out) {
  AssignOutShape(out, 0, Shape{1});
  return true;
}

bool FlagType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(out, 0, DType::kFloat32, false);
  for (DType t : *in)
    if (t == DType::kUnknown) return false;
  return true;
}

void Finish(bool init, bool finite, const TBlob& out) {
  float* f = out.dptr<float>();
  if (init) *f = 1.0f;
  if (!finite) *f = 0.0f;
}

void AllFiniteCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  Finish(Param<AllFiniteParam>(attrs).init_output, BlobIsFinite(in[0]), out[0]);
}

void MultiAllFiniteCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  bool finite = true;
  for (const auto& b : in) finite = finite && BlobIsFinite(b);
  Finish(Param<MultiAllFiniteParam>(attrs).init_output, finite, out[0]);
}

}  // namespace

SYMNET_REGISTER_OP(all_finite)
    .describe("Returns [1.0] when all elements of data are finite, else [0.0].")
    .set_attr_parser(ParamParser<AllFiniteParam>)
    .add_arguments(ParamDocs<AllFiniteParam>())
    .add_argument("data", "NDArray-or-Symbol", "The array to check.")
    .set_attr<FInferShape>("FInferShape", FlagShape)
    .set_attr<FInferType>("FInferType", FlagType)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", AllFiniteCompute);

SYMNET_REGISTER_OP(multi_all_finite)
    .describe(
        "Returns [1.0] when all elements of all arrays are finite, else [0.0]; the arrays "
        "may have different dtypes.")
    .set_key_var_num_args("num_arrays")
    .set_num_inputs([](const NodeAttrs& a) {
      return static_cast<uint32_t>(Param<MultiAllFiniteParam>(a).num_arrays);
    })
    .set_attr_parser(ParamParser<MultiAllFiniteParam>)
    .add_arguments(ParamDocs<MultiAllFiniteParam>())
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to check.")
    .set_attr<FInferShape>("FInferShape", FlagShape)
    .set_attr<FInferType>("FInferType", FlagType)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", MultiAllFiniteCompute);

}  // namespace ops
}  // namespace symnet
