/*! \brief shape_array and size_array (shape_array.h): shape and type rules, registrations. */
#include "shape_array.h"

namespace symnet {
namespace ops {

namespace {

/*! \brief (ndim,) or (1,): known once the input's ndim is (its dims need not be, for shapes). */
template <bool size_only>
bool ShapeArrayShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  AssignOutShape(out, 0, Shape{size_only ? 1 : s.ndim()});
  return true;
}

/*! \brief int64 output (as MXNet 1.9.1), whatever the input's dtype. */
bool ShapeArrayType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(out, 0, DType::kInt64, false);
  return (*in)[0] != DType::kUnknown;
}

}  // namespace

SYMNET_REGISTER_OP(shape_array)
    .describe(
        "The input's shape as a 1-D int64 array. Not differentiable: the input's gradient is "
        "zeros.")
    .add_argument("data", "NDArray-or-Symbol", "The input (only its shape is read).")
    .set_attr<FInferShape>("FInferShape", ShapeArrayShape<false>)
    .set_attr<FInferType>("FInferType", ShapeArrayType)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", ShapeArrayForward<cpu, false>);

SYMNET_REGISTER_OP(size_array)
    .describe(
        "The input's number of elements as a 1-element int64 array. Not differentiable: the "
        "input's gradient is zeros.")
    .add_argument("data", "NDArray-or-Symbol", "The input (only its shape is read).")
    .set_attr<FInferShape>("FInferShape", ShapeArrayShape<true>)
    .set_attr<FInferType>("FInferType", ShapeArrayType)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", ShapeArrayForward<cpu, true>);

}  // namespace ops
}  // namespace symnet
