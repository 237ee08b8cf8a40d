/*!
 * \brief The list of MXNet's element-wise math operators as X(NAME, FORWARD functor, GRADIENT
 *  functor, what the gradient reads, doc), expanded by elemwise_math.cc (the ops and their CPU
 *  kernels) and elemwise_math.cu (their GPU kernels).
 */
#ifndef SYMNET_OPERATORS_TENSOR_ELEMWISE_MATH_OPS_H_
#define SYMNET_OPERATORS_TENSOR_ELEMWISE_MATH_OPS_H_

#define SYMNET_ELEMWISE_MATH_OPS(X)                                                                \
  X(relu, relu, relu_grad, ElemwiseGradUseOut, "Rectified linear unit: max(x, 0).")                \
  X(sigmoid, sigmoid, sigmoid_grad, ElemwiseGradUseOut, "Logistic sigmoid: 1 / (1 + exp(-x)).")    \
  X(tanh, tanh, tanh_grad, ElemwiseGradUseOut, "Hyperbolic tangent.")                              \
  X(softsign, softsign, softsign_grad, ElemwiseGradUseOut, "x / (1 + |x|).")                       \
  X(exp, exp, exp_grad_out, ElemwiseGradUseOut, "Exponential: e^x.")                               \
  X(expm1, expm1, expm1_grad_out, ElemwiseGradUseOut, "e^x - 1, accurate near 0.")                 \
  X(sqrt, sqrt, sqrt_grad_out, ElemwiseGradUseOut, "Square root.")                                 \
  X(rsqrt, rsqrt, rsqrt_grad_out, ElemwiseGradUseOut, "Reciprocal square root: 1 / sqrt(x).")      \
  X(reciprocal, reciprocal, reciprocal_grad_out, ElemwiseGradUseOut, "Reciprocal: 1 / x.")         \
  X(log, log, log_grad_in, ElemwiseGradUseIn, "Natural logarithm.")                                \
  X(log1p, log1p, log1p_grad_in, ElemwiseGradUseIn, "log(1 + x), accurate near 0.")                \
  X(square, square, square_grad_in, ElemwiseGradUseIn, "Square: x * x.")                           \
  X(abs, abs, abs_grad_in, ElemwiseGradUseIn, "Absolute value (gradient sign(x), 0 at 0).")        \
  X(sin, sin, sin_grad_in, ElemwiseGradUseIn, "Sine (radians).")                                   \
  X(cos, cos, cos_grad_in, ElemwiseGradUseIn, "Cosine (radians).")                                 \
  X(tan, tan, tan_grad_out, ElemwiseGradUseOut, "Tangent (radians).")                              \
  X(arcsin, arcsin, arcsin_grad_in, ElemwiseGradUseIn, "Inverse sine, in [-pi/2, pi/2].")          \
  X(arccos, arccos, arccos_grad_in, ElemwiseGradUseIn, "Inverse cosine, in [0, pi].")              \
  X(arctan, arctan, arctan_grad_in, ElemwiseGradUseIn, "Inverse tangent, in (-pi/2, pi/2).")       \
  X(sinh, sinh, sinh_grad_in, ElemwiseGradUseIn, "Hyperbolic sine.")                               \
  X(cosh, cosh, cosh_grad_in, ElemwiseGradUseIn, "Hyperbolic cosine.")                             \
  X(arcsinh, arcsinh, arcsinh_grad_in, ElemwiseGradUseIn, "Inverse hyperbolic sine.")              \
  X(arccosh, arccosh, arccosh_grad_in, ElemwiseGradUseIn, "Inverse hyperbolic cosine (x >= 1).")   \
  X(arctanh, arctanh, arctanh_grad_in, ElemwiseGradUseIn, "Inverse hyperbolic tangent (|x| < 1).") \
  X(degrees, degrees, degrees_grad_in, ElemwiseGradUseIn, "Radians to degrees: x * 180 / pi.")     \
  X(radians, radians, radians_grad_in, ElemwiseGradUseIn, "Degrees to radians: x * pi / 180.")     \
  X(log2, log2, log2_grad_in, ElemwiseGradUseIn, "Base-2 logarithm.")                              \
  X(log10, log10, log10_grad_in, ElemwiseGradUseIn, "Base-10 logarithm.")                          \
  X(cbrt, cbrt, cbrt_grad_out, ElemwiseGradUseOut, "Cube root.")                                   \
  X(rcbrt, rcbrt, rcbrt_grad_in, ElemwiseGradUseIn, "Reciprocal cube root: 1 / cbrt(x).")          \
  X(erf, erf, erf_grad_in, ElemwiseGradUseIn, "Gauss error function.")                             \
  X(erfinv, erfinv, erfinv_grad_out, ElemwiseGradUseOut, "Inverse of the Gauss error function.")   \
  X(gamma, gamma, gamma_grad_in, ElemwiseGradUseIn, "The gamma function.")                         \
  X(gammaln, gammaln, gammaln_grad_in, ElemwiseGradUseIn,                                          \
    "log |gamma(x)|; its gradient is digamma.")

/*!
 * \brief Rounding, sign and logical_not as X(NAME, FORWARD functor, doc): piecewise constant, so
 * their gradient is zero (NoInputGradients, as MXNet), with no backward op or kernel.
 */
#define SYMNET_ELEMWISE_ROUNDING_OPS(X)                   \
  X(sign, sign, "Sign: -1, 0 or 1.")                      \
  X(floor, floor, "Largest integer <= x.")                \
  X(ceil, ceil, "Smallest integer >= x.")                 \
  X(round, round, "Nearest integer, halves away from 0.") \
  X(rint, rint, "Nearest integer, halves to even.")       \
  X(trunc, trunc, "Integer part, towards zero.")          \
  X(fix, trunc, "Rounds towards zero, as trunc.")         \
  X(logical_not, logical_not, "1 where x is 0, else 0.")

#endif  // SYMNET_OPERATORS_TENSOR_ELEMWISE_MATH_OPS_H_
