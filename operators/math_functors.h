/*!
 * \brief Scalar math as functors usable on host and device: Map(a[, b]) in the accumulation
 *  type (float for 16-bit data). Gradient functors take (output or input, ...) as documented.
 */
#ifndef SYMNET_OPERATORS_MATH_FUNCTORS_H_
#define SYMNET_OPERATORS_MATH_FUNCTORS_H_

#include <cmath>
#include <type_traits>

#include "symnet/base.h"
#include "symnet/dtype.h"

namespace symnet {
namespace ops {
namespace mathf {

#define SYMNET_BINARY_FUNCTOR(NAME, EXPR)   \
  struct NAME {                             \
    template <typename T>                   \
    SYMNET_XINLINE static T Map(T a, T b) { \
      return EXPR;                          \
    }                                       \
  };
#define SYMNET_UNARY_FUNCTOR(NAME, EXPR) \
  struct NAME {                          \
    template <typename T>                \
    SYMNET_XINLINE static T Map(T a) {   \
      return EXPR;                       \
    }                                    \
  };

SYMNET_BINARY_FUNCTOR(plus, a + b)
SYMNET_BINARY_FUNCTOR(minus, a - b)
SYMNET_BINARY_FUNCTOR(mul, a* b)
/*! \brief a / b; on integers C's division (towards zero, as MXNet's), with 0 where b is 0 (as
 *  NumPy's; MXNet's would trap) and -a where b is -1 (the most negative a would trap). */
struct div {
  template <typename T>
  SYMNET_XINLINE static T Map(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed<T>::value) {
        using U = std::make_unsigned_t<T>;
        if (b == T(-1)) return static_cast<T>(U(0) - static_cast<U>(a));
      }
      return static_cast<T>(a / b);
    } else {
      return a / b;
    }
  }
};
SYMNET_BINARY_FUNCTOR(rminus, b - a)
SYMNET_BINARY_FUNCTOR(rdiv, div::Map(b, a))
SYMNET_BINARY_FUNCTOR(left, a)
SYMNET_BINARY_FUNCTOR(right, b)
SYMNET_BINARY_FUNCTOR(maximum, a > b ? a : b)
SYMNET_BINARY_FUNCTOR(minimum, a < b ? a : b)
/*! \brief a ^ b; exact on integers (by squaring, wrapping on overflow), where a negative b
 *  gives the integer part of the float result: 1 for a = 1, +-1 for a = -1, else 0. */
struct power {
  template <typename T>
  SYMNET_XINLINE static T Map(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
      if constexpr (std::is_signed<T>::value) {
        if (b < T(0)) return a == T(1) ? T(1) : a == T(-1) ? T((b & T(1)) ? -1 : 1) : T(0);
      }
      using U = std::make_unsigned_t<T>;
      U r = 1, base = static_cast<U>(a), e = static_cast<U>(b);
      for (; e != U(0); e = static_cast<U>(e >> 1)) {
        if (e & U(1)) r = static_cast<U>(r * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(r);
    } else {
      return std::pow(a, b);
    }
  }
};
SYMNET_BINARY_FUNCTOR(hypot, std::hypot(a, b))
/*! \brief a mod b with the sign of b (Python's and MXNet's %), and 0 where b is 0 (MXNet's
 *  choice, where fmod would give NaN). */
struct mod {
  template <typename T>
  SYMNET_XINLINE static T Map(T a, T b) {
    if (b == T(0)) return T(0);
    if constexpr (std::is_integral<T>::value) {
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return T(0);  // the most negative a % -1 would trap
        const T r = static_cast<T>(a % b);
        return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? static_cast<T>(r + b) : r;
      } else {
        return static_cast<T>(a % b);
      }
    } else {
      const T r = std::fmod(a, b);
      return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
    }
  }
};
SYMNET_BINARY_FUNCTOR(rpower, power::Map(b, a))
SYMNET_BINARY_FUNCTOR(rmod, mod::Map(b, a))
// Comparisons and logical ops give 1 or 0 in the dtype of their inputs, as MXNet 1.x's do.
SYMNET_BINARY_FUNCTOR(equal, T(a == b))
SYMNET_BINARY_FUNCTOR(not_equal, T(a != b))
SYMNET_BINARY_FUNCTOR(greater, T(a > b))
SYMNET_BINARY_FUNCTOR(greater_equal, T(a >= b))
SYMNET_BINARY_FUNCTOR(lesser, T(a < b))
SYMNET_BINARY_FUNCTOR(lesser_equal, T(a <= b))
SYMNET_BINARY_FUNCTOR(logical_and, T(a != T(0) && b != T(0)))
SYMNET_BINARY_FUNCTOR(logical_or, T(a != T(0) || b != T(0)))
SYMNET_BINARY_FUNCTOR(logical_xor, T((a != T(0)) != (b != T(0))))

/*!
 * \brief Partial derivatives of a binary function f(a, b): Left = df/da, Right = df/db. One
 *  functor serves the same-shape, broadcast and scalar forms of an op's gradient.
 */
#define SYMNET_BINARY_GRAD_FUNCTOR(NAME, LEFT, RIGHT)                           \
  struct NAME {                                                                 \
    template <typename T>                                                       \
    SYMNET_XINLINE static T Left([[maybe_unused]] T a, [[maybe_unused]] T b) {  \
      return LEFT;                                                              \
    }                                                                           \
    template <typename T>                                                       \
    SYMNET_XINLINE static T Right([[maybe_unused]] T a, [[maybe_unused]] T b) { \
      return RIGHT;                                                             \
    }                                                                           \
  };
SYMNET_BINARY_GRAD_FUNCTOR(mul_grad, b, a)
SYMNET_BINARY_GRAD_FUNCTOR(div_grad, T(1) / b, -a / (b * b))
// a tie sends the gradient to the left input only, as MXNet 1.9.1 does
SYMNET_BINARY_GRAD_FUNCTOR(maximum_grad, T(a >= b), T(a < b))
SYMNET_BINARY_GRAD_FUNCTOR(minimum_grad, T(a <= b), T(a > b))
SYMNET_BINARY_GRAD_FUNCTOR(power_grad, b* std::pow(a, b - T(1)), std::pow(a, b) * std::log(a))
SYMNET_BINARY_GRAD_FUNCTOR(hypot_grad, a / std::hypot(a, b), b / std::hypot(a, b))
#undef SYMNET_BINARY_GRAD_FUNCTOR
/*! \brief a mod b = a - floor(a / b) * b, away from its jumps; on integers 0, as MXNet's. */
struct mod_grad {
  template <typename T>
  SYMNET_XINLINE static T Left([[maybe_unused]] T a, [[maybe_unused]] T b) {
    if constexpr (std::is_integral<T>::value) {
      return T(0);
    } else {
      return T(1);
    }
  }
  template <typename T>
  SYMNET_XINLINE static T Right([[maybe_unused]] T a, [[maybe_unused]] T b) {
    if constexpr (std::is_integral<T>::value) {
      return T(0);
    } else {
      return -std::floor(a / b);
    }
  }
};

/*! \brief d/dx f(x, s): the gradient of an op with a scalar on the right (x ^ s, x mod s). */
template <typename GRAD>
struct left_partial {
  template <typename T>
  SYMNET_XINLINE static T Map(T x, T s) {
    return GRAD::Left(x, s);
  }
};
/*! \brief d/dx f(s, x): the gradient of an op with a scalar on the left (s / x, s ^ x). */
template <typename GRAD>
struct right_partial {
  template <typename T>
  SYMNET_XINLINE static T Map(T x, T s) {
    return GRAD::Right(s, x);
  }
};

SYMNET_UNARY_FUNCTOR(identity, a)
SYMNET_UNARY_FUNCTOR(negation, -a)
SYMNET_UNARY_FUNCTOR(relu, a > T(0) ? a : T(0))
SYMNET_UNARY_FUNCTOR(sigmoid, T(1) / (T(1) + std::exp(-a)))
SYMNET_UNARY_FUNCTOR(tanh, std::tanh(a))
/*! \brief log(1 + exp(a)), computed without overflow for large a. */
SYMNET_UNARY_FUNCTOR(softrelu, a > T(20) ? a : std::log1p(std::exp(a)))
SYMNET_UNARY_FUNCTOR(softsign, a / (T(1) + std::fabs(a)))
SYMNET_UNARY_FUNCTOR(logical_not, T(a == T(0)))

// Activation gradients as functions of the forward OUTPUT y (so backward keeps only y).
// a comparison converted to 0 or 1, not a branch: branch-free so it vectorizes (a random sign
// pattern mispredicted every other element: relu backward ran 15x slower than forward)
SYMNET_UNARY_FUNCTOR(relu_grad, T(a > T(0)))
SYMNET_UNARY_FUNCTOR(sigmoid_grad, a*(T(1) - a))
SYMNET_UNARY_FUNCTOR(tanh_grad, T(1) - a * a)
/*! \brief y = log(1+e^x) => dy/dx = sigmoid(x) = 1 - e^{-y}. */
SYMNET_UNARY_FUNCTOR(softrelu_grad, -std::expm1(-a))
/*! \brief y = x/(1+|x|) => dy/dx = 1/(1+|x|)^2 = (1-|y|)^2. */
SYMNET_UNARY_FUNCTOR(softsign_grad, (T(1) - std::fabs(a)) * (T(1) - std::fabs(a)))

// Element-wise math (MXNet's unary operators) and their gradients. A gradient functor named
// *_grad_out takes the forward output y, one named *_grad_in the forward input x.
SYMNET_UNARY_FUNCTOR(exp, std::exp(a))
SYMNET_UNARY_FUNCTOR(log, std::log(a))
SYMNET_UNARY_FUNCTOR(log1p, std::log1p(a))
SYMNET_UNARY_FUNCTOR(expm1, std::expm1(a))
SYMNET_UNARY_FUNCTOR(sqrt, std::sqrt(a))
SYMNET_UNARY_FUNCTOR(rsqrt, T(1) / std::sqrt(a))
SYMNET_UNARY_FUNCTOR(square, a* a)
struct abs {
  template <typename T>
  SYMNET_XINLINE static T Map(T a) {
    if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
      return a < T(0) ? static_cast<T>(-a) : a;
    } else if constexpr (std::is_integral<T>::value) {
      return a;
    } else {
      return std::fabs(a);
    }
  }
};
SYMNET_UNARY_FUNCTOR(reciprocal, T(1) / a)
SYMNET_UNARY_FUNCTOR(exp_grad_out, a)                      // d exp = y
SYMNET_UNARY_FUNCTOR(expm1_grad_out, a + T(1))             // d expm1 = y + 1
SYMNET_UNARY_FUNCTOR(sqrt_grad_out, T(0.5) / a)            // d sqrt = 1 / (2y)
SYMNET_UNARY_FUNCTOR(rsqrt_grad_out, T(-0.5) * a * a * a)  // d x^-1/2 = -y^3 / 2
SYMNET_UNARY_FUNCTOR(reciprocal_grad_out, -a* a)           // d 1/x = -y^2
SYMNET_UNARY_FUNCTOR(log_grad_in, T(1) / a)                // d log = 1/x
SYMNET_UNARY_FUNCTOR(log1p_grad_in, T(1) / (T(1) + a))     // d log1p = 1/(1+x)
SYMNET_UNARY_FUNCTOR(square_grad_in, T(2) * a)             // d x^2 = 2x
SYMNET_UNARY_FUNCTOR(abs_grad_in, a > T(0) ? T(1) : (a < T(0) ? T(-1) : T(0)))  // sign(x)

// Trigonometric, hyperbolic, logarithmic and rounding functions (MXNet's names), gradients as
// above. Rounding and sign have none: their gradient is zero (NoInputGradients).
SYMNET_UNARY_FUNCTOR(sin, std::sin(a))
SYMNET_UNARY_FUNCTOR(cos, std::cos(a))
SYMNET_UNARY_FUNCTOR(tan, std::tan(a))
SYMNET_UNARY_FUNCTOR(arcsin, std::asin(a))
SYMNET_UNARY_FUNCTOR(arccos, std::acos(a))
SYMNET_UNARY_FUNCTOR(arctan, std::atan(a))
SYMNET_UNARY_FUNCTOR(sinh, std::sinh(a))
SYMNET_UNARY_FUNCTOR(cosh, std::cosh(a))
SYMNET_UNARY_FUNCTOR(arcsinh, std::asinh(a))
SYMNET_UNARY_FUNCTOR(arccosh, std::acosh(a))
SYMNET_UNARY_FUNCTOR(arctanh, std::atanh(a))
SYMNET_UNARY_FUNCTOR(degrees, a*(T(180) / T(3.14159265358979323846)))
SYMNET_UNARY_FUNCTOR(radians, a*(T(3.14159265358979323846) / T(180)))
SYMNET_UNARY_FUNCTOR(log2, std::log2(a))
SYMNET_UNARY_FUNCTOR(log10, std::log10(a))
SYMNET_UNARY_FUNCTOR(cbrt, std::cbrt(a))
SYMNET_UNARY_FUNCTOR(rcbrt, T(1) / std::cbrt(a))
SYMNET_UNARY_FUNCTOR(erf, std::erf(a))
struct sign {
  template <typename T>
  SYMNET_XINLINE static T Map(T a) {
    if constexpr (std::is_unsigned<T>::value) {
      return T(a > T(0));  // (an unsigned a < 0 draws a compiler warning)
    } else {
      return T(a > T(0)) - T(a < T(0));
    }
  }
};
// Rounding leaves integers as they are (exactly: int64 beyond 2^53 never passes through double).
#define SYMNET_ROUNDING_FUNCTOR(NAME, FN)         \
  struct NAME {                                   \
    template <typename T>                         \
    SYMNET_XINLINE static T Map(T a) {            \
      if constexpr (std::is_integral<T>::value) { \
        return a;                                 \
      } else {                                    \
        return FN(a);                             \
      }                                           \
    }                                             \
  };
SYMNET_ROUNDING_FUNCTOR(floor, std::floor)
SYMNET_ROUNDING_FUNCTOR(ceil, std::ceil)
SYMNET_ROUNDING_FUNCTOR(round, std::round)  // halves away from zero
SYMNET_ROUNDING_FUNCTOR(rint, std::rint)    // halves to even
SYMNET_ROUNDING_FUNCTOR(trunc, std::trunc)  // fix is its alias in MXNet's semantics
#undef SYMNET_ROUNDING_FUNCTOR
SYMNET_UNARY_FUNCTOR(sin_grad_in, std::cos(a))
SYMNET_UNARY_FUNCTOR(cos_grad_in, -std::sin(a))
SYMNET_UNARY_FUNCTOR(tan_grad_out, T(1) + a * a)  // d tan = 1 + y^2
SYMNET_UNARY_FUNCTOR(arcsin_grad_in, T(1) / std::sqrt(T(1) - a * a))
SYMNET_UNARY_FUNCTOR(arccos_grad_in, T(-1) / std::sqrt(T(1) - a * a))
SYMNET_UNARY_FUNCTOR(arctan_grad_in, T(1) / (T(1) + a * a))
SYMNET_UNARY_FUNCTOR(sinh_grad_in, std::cosh(a))
SYMNET_UNARY_FUNCTOR(cosh_grad_in, std::sinh(a))
SYMNET_UNARY_FUNCTOR(arcsinh_grad_in, T(1) / std::sqrt(a * a + T(1)))
SYMNET_UNARY_FUNCTOR(arccosh_grad_in, T(1) / std::sqrt(a * a - T(1)))
SYMNET_UNARY_FUNCTOR(arctanh_grad_in, T(1) / (T(1) - a * a))
SYMNET_UNARY_FUNCTOR(degrees_grad_in, T(180) / T(3.14159265358979323846))
SYMNET_UNARY_FUNCTOR(radians_grad_in, T(3.14159265358979323846) / T(180))
SYMNET_UNARY_FUNCTOR(log2_grad_in, T(1) / (a * T(0.69314718055994530942)))
SYMNET_UNARY_FUNCTOR(log10_grad_in, T(1) / (a * T(2.30258509299404568402)))
SYMNET_UNARY_FUNCTOR(cbrt_grad_out, T(1) / (T(3) * a * a))              // d x^1/3 = 1 / (3y^2)
SYMNET_UNARY_FUNCTOR(rcbrt_grad_in, T(-1) / (T(3) * a * std::cbrt(a)))  // d x^-1/3 = -x^-4/3 / 3
SYMNET_UNARY_FUNCTOR(erf_grad_in,
                     T(1.12837916709551257390) * std::exp(-a * a))  // 2/sqrt(pi) e^-x^2

/*!
 * \brief Inverse error function. A closed-form first guess (Winitzki's approximation, relative
 *  error below 2e-3) is polished by Halley steps, which triple the correct digits per step. The
 *  steps solve erf(x) = |y| near 0 but erfc(x) = 1 - |y| in the tails, where 1 - |y| is exact and
 *  erf has saturated to 1 (the residual in erf would carry no digits at all).
 */
struct erfinv {
  template <typename T>
  SYMNET_XINLINE static T Map(T y) {
    const T ay = std::fabs(y);
    if (!(ay < T(1))) return ay == T(1) ? std::copysign(T(INFINITY), y) : T(NAN);
    const T q = T(1) - ay;
    const T l = std::log(q * (T(1) + ay));         // log(1 - y^2) without cancellation
    const T c = T(4.33074675079987) + T(0.5) * l;  // 2 / (pi * 0.147) + l / 2
    T x = std::sqrt(std::sqrt(c * c - l * T(6.80272108844)) - c);  // 1 / 0.147
    const int steps = sizeof(T) >= 8 ? 3 : 2;
    for (int k = 0; k < steps; ++k) {
      const T r = ay <= T(0.5) ? std::erf(x) - ay : q - std::erfc(x);
      const T d = r / (T(1.12837916709551257390) * std::exp(-x * x));  // r / erf'(x)
      x -= d / (T(1) + x * d);                                         // Halley: erf''/erf' = -2x
    }
    return std::copysign(x, y);
  }
};
/*! \brief d erfinv(x) = sqrt(pi)/2 exp(erfinv(x)^2), from the forward output y. */
SYMNET_UNARY_FUNCTOR(erfinv_grad_out, T(0.88622692545275801365) * std::exp(a * a))

/*!
 * \brief The digamma function psi = d log(gamma). Reflection moves x <= 0 to 1 - x, the recurrence
 *  psi(x) = psi(x + 1) - 1/x moves x to at least 10, where the asymptotic series (through x^-10)
 *  is accurate to double precision. At the poles (0, -1, -2, ...) it returns the largest finite
 *  value, as MXNet's (Cephes') digamma does.
 */
struct digamma {
  template <typename T>
  SYMNET_XINLINE static T Map(T x) {
    constexpr T kPi = T(3.14159265358979323846);
    T acc = T(0);
    if (x <= T(0)) {
      if (x == std::floor(x)) return sizeof(T) >= 8 ? T(1.7976931348623157e308) : T(3.4028234e38);
      acc = -kPi / std::tan(kPi * x);  // psi(x) = psi(1 - x) - pi cot(pi x)
      x = T(1) - x;
    }
    for (; x < T(10); x += T(1)) acc -= T(1) / x;
    const T r = T(1) / (x * x);
    const T tail =
        r * (T(1) / 12 - r * (T(1) / 120 - r * (T(1) / 252 - r * (T(1) / 240 - r * (T(1) / 132)))));
    return acc + std::log(x) - T(0.5) / x - tail;
  }
};
SYMNET_UNARY_FUNCTOR(gamma, std::tgamma(a))
SYMNET_UNARY_FUNCTOR(gammaln, std::lgamma(a))                          // log |gamma(x)|
SYMNET_UNARY_FUNCTOR(gamma_grad_in, std::tgamma(a) * digamma::Map(a))  // gamma' = gamma psi
SYMNET_UNARY_FUNCTOR(gammaln_grad_in, digamma::Map(a))

/*! \brief Smooth L1 (Huber) with sigma b: 0.5 (b x)^2 for |x| < 1/b^2, else |x| - 0.5/b^2. */
struct smooth_l1 {
  template <typename T>
  SYMNET_XINLINE static T Map(T a, T b) {
    const T b2 = b * b;
    if (a > T(1) / b2) return a - T(0.5) / b2;
    if (a < T(-1) / b2) return -a - T(0.5) / b2;
    return T(0.5) * a * a * b2;
  }
};
/*! \brief d smooth_l1(x, b) / dx: sign(x) outside the quadratic part, b^2 x inside. */
struct smooth_l1_grad {
  template <typename T>
  SYMNET_XINLINE static T Map(T a, T b) {
    const T b2 = b * b;
    if (a > T(1) / b2) return T(1);
    if (a < T(-1) / b2) return T(-1);
    return b2 * a;
  }
};

#undef SYMNET_BINARY_FUNCTOR
#undef SYMNET_UNARY_FUNCTOR

/*!
 * \brief Whether a functor is exact on integers, computed in the integer type itself (+, *, /,
 *  mod, power, comparisons, rounding, ...). The others (sqrt, exp, hypot, ...) see integer data
 *  as double and their result is converted back, as MXNet 1.x computes them in floating point.
 */
template <typename OP>
struct IntegerExact : std::false_type {};
#define SYMNET_INTEGER_EXACT(NAME) \
  template <>                      \
  struct IntegerExact<NAME> : std::true_type {};
SYMNET_INTEGER_EXACT(plus)
SYMNET_INTEGER_EXACT(minus)
SYMNET_INTEGER_EXACT(mul)
SYMNET_INTEGER_EXACT(div)
SYMNET_INTEGER_EXACT(rminus)
SYMNET_INTEGER_EXACT(rdiv)
SYMNET_INTEGER_EXACT(left)
SYMNET_INTEGER_EXACT(right)
SYMNET_INTEGER_EXACT(maximum)
SYMNET_INTEGER_EXACT(minimum)
SYMNET_INTEGER_EXACT(power)
SYMNET_INTEGER_EXACT(rpower)
SYMNET_INTEGER_EXACT(mod)
SYMNET_INTEGER_EXACT(rmod)
SYMNET_INTEGER_EXACT(mod_grad)
SYMNET_INTEGER_EXACT(equal)
SYMNET_INTEGER_EXACT(not_equal)
SYMNET_INTEGER_EXACT(greater)
SYMNET_INTEGER_EXACT(greater_equal)
SYMNET_INTEGER_EXACT(lesser)
SYMNET_INTEGER_EXACT(lesser_equal)
SYMNET_INTEGER_EXACT(logical_and)
SYMNET_INTEGER_EXACT(logical_or)
SYMNET_INTEGER_EXACT(logical_xor)
SYMNET_INTEGER_EXACT(identity)
SYMNET_INTEGER_EXACT(negation)
SYMNET_INTEGER_EXACT(relu)
SYMNET_INTEGER_EXACT(logical_not)
SYMNET_INTEGER_EXACT(square)
SYMNET_INTEGER_EXACT(abs)
SYMNET_INTEGER_EXACT(sign)
SYMNET_INTEGER_EXACT(floor)
SYMNET_INTEGER_EXACT(ceil)
SYMNET_INTEGER_EXACT(round)
SYMNET_INTEGER_EXACT(rint)
SYMNET_INTEGER_EXACT(trunc)
#undef SYMNET_INTEGER_EXACT

}  // namespace mathf

/*! \brief The type functor OP computes in for data of type T: AccType<T> (float for 16-bit
 *  floats), and for integers the integer itself or double (mathf::IntegerExact). */
template <typename OP, typename T>
using MathType = std::conditional_t<std::is_integral<T>::value && !mathf::IntegerExact<OP>::value,
                                    double, AccType<T>>;
}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_MATH_FUNCTORS_H_
