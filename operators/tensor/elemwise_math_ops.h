/*!
 * \brief The list of MXNet's element-wise math operators as X(NAME, FORWARD functor, GRADIENT
 *  functor, what the gradient reads, doc), expanded by elemwise_math.cc (the ops and their CPU
 *  kernels) and elemwise_math.cu (their GPU kernels).
 */
#ifndef SYMNET_OPERATORS_TENSOR_ELEMWISE_MATH_OPS_H_
#define SYMNET_OPERATORS_TENSOR_ELEMWISE_MATH_OPS_H_

#define SYMNET_ELEMWISE_MATH_OPS(X)                                                             \
  X(relu, relu, relu_grad, ElemwiseGradUseOut, "Rectified linear unit: max(x, 0).")             \
  X(sigmoid, sigmoid, sigmoid_grad, ElemwiseGradUseOut, "Logistic sigmoid: 1 / (1 + exp(-x)).") \
  X(tanh, tanh, tanh_grad, ElemwiseGradUseOut, "Hyperbolic tangent.")                           \
  X(softsign, softsign, softsign_grad, ElemwiseGradUseOut, "x / (1 + |x|).")                    \
  X(exp, exp, exp_grad_out, ElemwiseGradUseOut, "Exponential: e^x.")                            \
  X(expm1, expm1, expm1_grad_out, ElemwiseGradUseOut, "e^x - 1, accurate near 0.")              \
  X(sqrt, sqrt, sqrt_grad_out, ElemwiseGradUseOut, "Square root.")                              \
  X(rsqrt, rsqrt, rsqrt_grad_out, ElemwiseGradUseOut, "Reciprocal square root: 1 / sqrt(x).")   \
  X(reciprocal, reciprocal, reciprocal_grad_out, ElemwiseGradUseOut, "Reciprocal: 1 / x.")      \
  X(log, log, log_grad_in, ElemwiseGradUseIn, "Natural logarithm.")                             \
  X(log1p, log1p, log1p_grad_in, ElemwiseGradUseIn, "log(1 + x), accurate near 0.")             \
  X(square, square, square_grad_in, ElemwiseGradUseIn, "Square: x * x.")                        \
  X(abs, abs, abs_grad_in, ElemwiseGradUseIn, "Absolute value (gradient sign(x), 0 at 0).")

#endif  // SYMNET_OPERATORS_TENSOR_ELEMWISE_MATH_OPS_H_
