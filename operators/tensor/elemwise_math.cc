/*!
 * \brief MXNet's element-wise math operators: relu, sigmoid, tanh, softsign (as standalone ops,
 *  besides Activation), exp, log, log1p, expm1, sqrt, rsqrt, square, abs, reciprocal. Each
 *  backward keeps only what its derivative needs: the output for exp-like functions, the input
 *  for the others.
 */
#include "elemwise_kernels.h"
#include "elemwise_math_ops.h"

namespace symnet {
namespace ops {

#define SYMNET_REGISTER_UNARY_MATH(NAME, FWD, GRAD, GRAD_USE, DOC)    \
  SYMNET_REGISTER_OP(NAME)                                            \
      .describe(DOC)                                                  \
      .add_argument("data", "NDArray-or-Symbol", "The input.")        \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)            \
      .set_attr<FInferType>("FInferType", ElemwiseType)               \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)        \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)     \
      .set_attr<FGradient>("FGradient", GRAD_USE("_backward_" #NAME)) \
      .set_attr<FCompute>("FCompute<cpu>", UnaryCompute<mathf::FWD>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                \
      .set_num_inputs(2)                                              \
      .set_attr<TIsBackward>("TIsBackward", true)                     \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)        \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)     \
      .set_attr<FCompute>("FCompute<cpu>", UnaryGradCompute<mathf::GRAD>);

SYMNET_ELEMWISE_MATH_OPS(SYMNET_REGISTER_UNARY_MATH)

#define SYMNET_REGISTER_ROUNDING(NAME, FWD, DOC)                  \
  SYMNET_REGISTER_OP(NAME)                                        \
      .describe(DOC " Its gradient is zero.")                     \
      .add_argument("data", "NDArray-or-Symbol", "The input.")    \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)        \
      .set_attr<FInferType>("FInferType", ElemwiseType)           \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)    \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0) \
      .set_attr<FGradient>("FGradient", NoInputGradients)         \
      .set_attr<FCompute>("FCompute<cpu>", UnaryCompute<mathf::FWD>);

SYMNET_ELEMWISE_ROUNDING_OPS(SYMNET_REGISTER_ROUNDING)

}  // namespace ops
}  // namespace symnet
