"""MXNet's binary math and comparison functions (maximum, power, modulo, equal, greater, ...):
which registered op each one runs for an array and an array, an array and a scalar, and a
scalar and an array. mx.nd, mx.sym and the operators (**, %, ==, >, ...) of NDArray and Symbol
all read this one table."""
import operator

import numpy as np

# name: (same-shape op, broadcast op, op for array OP scalar, op for scalar OP array, and what
# two numbers give: MXNet's own expressions, so comparisons give 1 or 0 and maximum(nan, 1) is 1)
BINARY = {
    "maximum": ("_maximum", "broadcast_maximum", "_maximum_scalar", "_maximum_scalar",
                lambda x, y: x if x > y else y),
    "minimum": ("_minimum", "broadcast_minimum", "_minimum_scalar", "_minimum_scalar",
                lambda x, y: x if x < y else y),
    "power": ("_power", "broadcast_power", "_power_scalar", "_rpower_scalar", operator.pow),
    "modulo": ("_mod", "broadcast_mod", "_mod_scalar", "_rmod_scalar", operator.mod),
    "hypot": ("_hypot", "broadcast_hypot", "_hypot_scalar", "_hypot_scalar", np.hypot),
    "equal": ("_equal", "broadcast_equal", "_equal_scalar", "_equal_scalar",
              lambda x, y: 1 if x == y else 0),
    "not_equal": ("_not_equal", "broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar",
                  lambda x, y: 1 if x != y else 0),
    # s > x is x < s: a scalar on the left takes the mirrored comparison
    "greater": ("_greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar",
                lambda x, y: 1 if x > y else 0),
    "greater_equal": ("_greater_equal", "broadcast_greater_equal", "_greater_equal_scalar",
                      "_lesser_equal_scalar", lambda x, y: 1 if x >= y else 0),
    "lesser": ("_lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar",
               lambda x, y: 1 if x < y else 0),
    "lesser_equal": ("_lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar",
                     "_greater_equal_scalar", lambda x, y: 1 if x <= y else 0),
    "logical_and": ("_logical_and", "broadcast_logical_and", "_logical_and_scalar",
                    "_logical_and_scalar", lambda x, y: 1 if x and y else 0),
    "logical_or": ("_logical_or", "broadcast_logical_or", "_logical_or_scalar",
                   "_logical_or_scalar", lambda x, y: 1 if x or y else 0),
    "logical_xor": ("_logical_xor", "broadcast_logical_xor", "_logical_xor_scalar",
                    "_logical_xor_scalar", lambda x, y: 1 if bool(x) ^ bool(y) else 0),
}

# mx.nd's arithmetic functions (MXNet has no mx.sym counterparts: symbols use + - * /)
ARITHMETIC = {
    "add": ("elemwise_add", "broadcast_add", "_plus_scalar", "_plus_scalar", operator.add),
    "subtract": ("elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar",
                 operator.sub),
    "multiply": ("elemwise_mul", "broadcast_mul", "_mul_scalar", "_mul_scalar", operator.mul),
    "divide": ("elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv),
    "true_divide": ("elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar",
                    operator.truediv),
}

# the Python operators of NDArray and Symbol, as (method, function, operands swapped)
OPERATORS = [("__pow__", "power", False), ("__rpow__", "power", True),
             ("__mod__", "modulo", False), ("__rmod__", "modulo", True),
             ("__eq__", "equal", False), ("__ne__", "not_equal", False),
             ("__gt__", "greater", False), ("__ge__", "greater_equal", False),
             ("__lt__", "lesser", False), ("__le__", "lesser_equal", False)]


def make_function(name, is_array, numeric_types, apply):
    """The module function `name`(lhs, rhs): `apply(op, scalar_or_None, [arrays])` runs one op;
    two scalars give Python's answer, as MXNet's functions do."""
    op, bop, sop, rsop, pyfn = BINARY[name] if name in BINARY else ARITHMETIC[name]

    def fn(lhs, rhs):
        if is_array(lhs) and is_array(rhs):
            return apply((op, bop), None, [lhs, rhs])
        if is_array(lhs) and isinstance(rhs, numeric_types):
            return apply(sop, rhs, [lhs])
        if isinstance(lhs, numeric_types) and is_array(rhs):
            return apply(rsop, lhs, [rhs])
        if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
            return pyfn(lhs, rhs)
        raise TypeError("%s: unsupported operand types %s and %s"
                        % (name, type(lhs).__name__, type(rhs).__name__))

    fn.__name__ = name
    fn.__doc__ = "MXNet's %s: element-wise on arrays (broadcast where shapes differ) and scalars." % name
    return fn


def make_operator(fn, swapped, is_array, numeric_types):
    """A Python operator method calling `fn`; NotImplemented for operands it does not take (so
    `x == None` is False, as for any object)."""
    def method(self, other):
        if not (is_array(other) or isinstance(other, numeric_types)):
            return NotImplemented
        return fn(other, self) if swapped else fn(self, other)
    return method
