/*!
 * \brief MXNet's element-wise math operators: relu, sigmoid, tanh, softsign (as standalone ops,
 *  besides Activation), exp, log, log1p, expm1, sqrt, rsqrt, square, abs, reciprocal. Each
 *  backward keeps only what its derivative needs: the output for exp-like functions, the input
 *  for the others.
 */
#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

#define SYMNET_REGISTER_UNARY_MATH(NAME, FWD, GRAD, GRAD_USE, DOC)                 \
  SYMNET_REGISTER_OP(NAME)                                                         \
      .describe(DOC)                                                               \
      .add_argument("data", "NDArray-or-Symbol", "The input.")                     \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                         \
      .set_attr<FInferType>("FInferType", ElemwiseType)                            \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)                     \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                  \
      .set_attr<FGradient>("FGradient", GRAD_USE("_backward_" #NAME))              \
      .set_attr<FCompute>("FCompute<cpu>", UnaryCompute<mathf::FWD>);              \
  SYMNET_REGISTER_OP(_backward_##NAME)                                             \
      .set_num_inputs(2)                                                           \
      .set_attr<TIsBackward>("TIsBackward", true)                                  \
      .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)                     \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                  \
      .set_attr<FCompute>("FCompute<cpu>", UnaryGradCompute<mathf::GRAD>)

SYMNET_REGISTER_UNARY_MATH(relu, relu, relu_grad, ElemwiseGradUseOut, "Rectified linear unit: max(x, 0).");
SYMNET_REGISTER_UNARY_MATH(sigmoid, sigmoid, sigmoid_grad, ElemwiseGradUseOut, "Logistic sigmoid: 1 / (1 + exp(-x)).");
SYMNET_REGISTER_UNARY_MATH(tanh, tanh, tanh_grad, ElemwiseGradUseOut, "Hyperbolic tangent.");
SYMNET_REGISTER_UNARY_MATH(softsign, softsign, softsign_grad, ElemwiseGradUseOut, "x / (1 + |x|).");
SYMNET_REGISTER_UNARY_MATH(exp, exp, exp_grad_out, ElemwiseGradUseOut, "Exponential: e^x.");
SYMNET_REGISTER_UNARY_MATH(expm1, expm1, expm1_grad_out, ElemwiseGradUseOut, "e^x - 1, accurate near 0.");
SYMNET_REGISTER_UNARY_MATH(sqrt, sqrt, sqrt_grad_out, ElemwiseGradUseOut, "Square root.");
SYMNET_REGISTER_UNARY_MATH(rsqrt, rsqrt, rsqrt_grad_out, ElemwiseGradUseOut, "Reciprocal square root: 1 / sqrt(x).");
SYMNET_REGISTER_UNARY_MATH(reciprocal, reciprocal, reciprocal_grad_out, ElemwiseGradUseOut, "Reciprocal: 1 / x.");
SYMNET_REGISTER_UNARY_MATH(log, log, log_grad_in, ElemwiseGradUseIn, "Natural logarithm.");
SYMNET_REGISTER_UNARY_MATH(log1p, log1p, log1p_grad_in, ElemwiseGradUseIn, "log(1 + x), accurate near 0.");
SYMNET_REGISTER_UNARY_MATH(square, square, square_grad_in, ElemwiseGradUseIn, "Square: x * x.");
SYMNET_REGISTER_UNARY_MATH(abs, abs, abs_grad_in, ElemwiseGradUseIn, "Absolute value (gradient sign(x), 0 at 0).");

}  // namespace ops
}  // namespace symnet
