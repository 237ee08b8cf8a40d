/*!
 * \brief Scalar math as functors usable on host and device: Map(a[, b]) in the accumulation
 *  type (float for 16-bit data). Gradient functors take (output or input, ...) as documented.
 */
#ifndef SYMNET_OPERATORS_MATH_FUNCTORS_H_
#define SYMNET_OPERATORS_MATH_FUNCTORS_H_

#include <cmath>

#include "symnet/base.h"

namespace symnet {
namespace ops {
namespace mathf {

#define SYMNET_BINARY_FUNCTOR(NAME, EXPR)             \
  struct NAME {                                       \
    template <typename T>                             \
    SYMNET_XINLINE static T Map(T a, T b) {           \
      return EXPR;                                    \
    }                                                 \
  };
#define SYMNET_UNARY_FUNCTOR(NAME, EXPR)              \
  struct NAME {                                       \
    template <typename T>                             \
    SYMNET_XINLINE static T Map(T a) {                \
      return EXPR;                                    \
    }                                                 \
  };

SYMNET_BINARY_FUNCTOR(plus, a + b)
SYMNET_BINARY_FUNCTOR(minus, a - b)
SYMNET_BINARY_FUNCTOR(mul, a * b)
SYMNET_BINARY_FUNCTOR(div, a / b)
SYMNET_BINARY_FUNCTOR(rminus, b - a)
SYMNET_BINARY_FUNCTOR(rdiv, b / a)
SYMNET_BINARY_FUNCTOR(left, a)
SYMNET_BINARY_FUNCTOR(right, b)
SYMNET_BINARY_FUNCTOR(maximum, a > b ? a : b)
SYMNET_BINARY_FUNCTOR(minimum, a < b ? a : b)
/*! \brief d(b/a)/da = -b/a^2 for _rdiv_scalar: Map(x, scalar). */
SYMNET_BINARY_FUNCTOR(rdiv_grad, -b / (a * a))

SYMNET_UNARY_FUNCTOR(identity, a)
SYMNET_UNARY_FUNCTOR(negation, -a)
SYMNET_UNARY_FUNCTOR(relu, a > T(0) ? a : T(0))
SYMNET_UNARY_FUNCTOR(sigmoid, T(1) / (T(1) + std::exp(-a)))
SYMNET_UNARY_FUNCTOR(tanh, std::tanh(a))
/*! \brief log(1 + exp(a)), computed without overflow for large a. */
SYMNET_UNARY_FUNCTOR(softrelu, a > T(20) ? a : std::log1p(std::exp(a)))
SYMNET_UNARY_FUNCTOR(softsign, a / (T(1) + std::fabs(a)))

// Activation gradients as functions of the forward OUTPUT y (so backward keeps only y).
SYMNET_UNARY_FUNCTOR(relu_grad, a > T(0) ? T(1) : T(0))
SYMNET_UNARY_FUNCTOR(sigmoid_grad, a * (T(1) - a))
SYMNET_UNARY_FUNCTOR(tanh_grad, T(1) - a * a)
/*! \brief y = log(1+e^x) => dy/dx = sigmoid(x) = 1 - e^{-y}. */
SYMNET_UNARY_FUNCTOR(softrelu_grad, -std::expm1(-a))
/*! \brief y = x/(1+|x|) => dy/dx = 1/(1+|x|)^2 = (1-|y|)^2. */
SYMNET_UNARY_FUNCTOR(softsign_grad, (T(1) - std::fabs(a)) * (T(1) - std::fabs(a)))

#undef SYMNET_BINARY_FUNCTOR
#undef SYMNET_UNARY_FUNCTOR

}  // namespace mathf
}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_MATH_FUNCTORS_H_
