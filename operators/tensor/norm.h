/*! \brief norm (the L1 or L2 norm over axes): parameter and kernels, templated on the device. */
#ifndef SYMNET_OPERATORS_TENSOR_NORM_H_
#define SYMNET_OPERATORS_TENSOR_NORM_H_

#include <vector>

#include "reduce.h"

namespace symnet {
namespace ops {

struct NormParam : public dmlc::Parameter<NormParam> {
  int ord;
  Shape axis;
  dmlc::optional<int> out_dtype;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(NormParam) {
    DMLC_DECLARE_FIELD(ord).set_default(2).describe(
        "1: the sum of absolute values; 2: the square root of the sum of squares (over two axes, "
        "the Frobenius norm).");
    DMLC_DECLARE_FIELD(axis).set_default(Shape()).describe(
        "The axis or axes to reduce; None (the default) reduces all axes.");
    DMLC_DECLARE_FIELD(out_dtype)
        .add_enum("float16", static_cast<int>(DType::kFloat16))
        .add_enum("float32", static_cast<int>(DType::kFloat32))
        .add_enum("float64", static_cast<int>(DType::kFloat64))
        .set_default(dmlc::optional<int>())
        .describe("MXNet's output dtype; only None (the input's dtype) is supported.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes in the result as dimensions of size 1.");
  }
};

/*! \brief The axes of a norm as the reductions' parameter. */
inline ReduceParam NormAxes(const NormParam& p) {
  ReduceParam r;
  r.axis = p.axis;
  r.keepdims = p.keepdims;
  r.exclude = false;
  return r;
}

template <typename xpu = cpu>
void NormCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormParam& p = Param<NormParam>(attrs);
  const Shape kd = KeepDimsShape(NormAxes(p), in[0].shape_);
  if (p.ord == 1) {
    ReduceAxes<L1Reducer, xpu>(in[0], kd, out[0], req[0]);
  } else {
    ReduceAxes<L2Reducer, xpu>(in[0], kd, out[0], req[0]);
  }
}

/*! \brief Inputs (dy, x, y). */
template <typename xpu = cpu>
void NormGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormParam& p = Param<NormParam>(attrs);
  const Shape kd = KeepDimsShape(NormAxes(p), out[0].shape_);
  if (p.ord == 1) {
    ReduceAxesGrad<L1Grad, xpu>(in, kd, out[0], req[0]);
  } else {
    ReduceAxesGrad<L2Grad, xpu>(in, kd, out[0], req[0]);
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_NORM_H_
