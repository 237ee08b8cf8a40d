"""MXNet's fluent methods: x.sum(axis=1) is nd.sum(x, axis=1) for an NDArray and sym.sum(x,
axis=1) for a Symbol, so hybrid_forward code reads the same with F = nd or F = sym. Each method
calls the namespace's operator function, so an NDArray call is recorded by autograd like any
other op call."""

# MXNet 1.x's list (NDArray and Symbol share it); names whose op symnet lacks are left out
FLUENT = (
    "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "broadcast_to",
    "broadcast_like", "repeat", "pad", "swapaxes", "split", "split_v2", "slice", "slice_axis",
    "slice_like", "take", "one_hot", "pick", "sort", "topk", "argsort", "argmax",
    "argmax_channel", "argmin", "clip", "abs", "sign", "flatten", "shape_array", "size_array",
    "expand_dims", "tile", "transpose", "flip", "depth_to_space", "space_to_depth", "diag",
    "sum", "nansum", "prod", "nanprod", "mean", "max", "min", "norm", "round", "rint", "fix",
    "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees",
    "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log",
    "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal", "relu",
    "sigmoid", "softmax", "log_softmax", "softmin", "squeeze")


def _method(namespace, name):
    def method(self, *args, **kwargs):
        return namespace[name](self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = "%s(self, ...): the fluent form of the operator function." % name
    return method


def add_fluent_methods(cls, namespace):
    """Adds each FLUENT name that `namespace` (a module's globals) has as an operator function
    and `cls` does not define itself."""
    for name in FLUENT:
        if name in namespace and not hasattr(cls, name):
            setattr(cls, name, _method(namespace, name))
