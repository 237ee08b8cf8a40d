/*!
 * \brief MXNet's binary math beyond + - * /, as lists expanded into the same-shape (_maximum),
 *  broadcast (broadcast_maximum) and GPU registrations, so that each form of each op is written
 *  once. The forward functor is mathf::NAME; a differentiable op's partials are mathf::NAME_grad.
 */
#ifndef SYMNET_OPERATORS_TENSOR_BINARY_MATH_OPS_H_
#define SYMNET_OPERATORS_TENSOR_BINARY_MATH_OPS_H_

/*! \brief Differentiable ops as X(NAME, legacy alias of the same-shape op, doc). */
#define SYMNET_BINARY_MATH_OPS(X)                                         \
  X(maximum, _Maximum, "The larger of lhs and rhs")                       \
  X(minimum, _Minimum, "The smaller of lhs and rhs")                      \
  X(power, _Power, "lhs raised to the power rhs")                         \
  X(mod, _Mod, "lhs modulo rhs, with the sign of rhs (0 where rhs is 0)") \
  X(hypot, _Hypot, "sqrt(lhs^2 + rhs^2), without overflow in the squares")

/*! \brief Comparisons and logical ops as X(NAME, legacy alias, doc): outputs 1 or 0 in the
 *  inputs' dtype, and no gradient (zero, as MXNet). */
#define SYMNET_BINARY_LOGIC_OPS(X)                                  \
  X(equal, _Equal, "1 where lhs == rhs, else 0")                    \
  X(not_equal, _Not_Equal, "1 where lhs != rhs, else 0")            \
  X(greater, _Greater, "1 where lhs > rhs, else 0")                 \
  X(greater_equal, _Greater_Equal, "1 where lhs >= rhs, else 0")    \
  X(lesser, _Lesser, "1 where lhs < rhs, else 0")                   \
  X(lesser_equal, _Lesser_Equal, "1 where lhs <= rhs, else 0")      \
  X(logical_and, _Logical_And, "1 where both are non-zero, else 0") \
  X(logical_or, _Logical_Or, "1 where either is non-zero, else 0")  \
  X(logical_xor, _Logical_Xor, "1 where exactly one is non-zero, else 0")

#endif  // SYMNET_OPERATORS_TENSOR_BINARY_MATH_OPS_H_
