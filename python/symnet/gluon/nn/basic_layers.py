"""Gluon's basic layers (MXNet's gluon.nn basic_layers and activations)."""
import warnings

from ... import initializer as _init
from ..block import Block, HybridBlock


class Sequential(Block):
    """Runs its children in order."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for b in blocks:
            self.register_child(b)

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        """Hybridizes the children; warns (as MXNet) when all of them are HybridBlocks, since a
        HybridSequential would run them as one graph."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider "
                          "using HybridSequential for the best performance." % self.prefix,
                          stacklevel=2)
        super().hybridize(active, **kwargs)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)


class HybridSequential(HybridBlock):
    """Runs its children (HybridBlocks) in order; hybridizes as one graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for b in blocks:
            self.register_child(b)

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x

    __getitem__ = Sequential.__getitem__
    __len__ = Sequential.__len__


class Dense(HybridBlock):
    """A fully connected layer: act(dot(x, weight.T) + bias); in_units 0 = inferred."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                        dtype=dtype, allow_deferred_init=True) \
                if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            act = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        else:
            act = F.FullyConnected(x, weight, bias, num_hidden=self._units,
                                   flatten=self._flatten, name="fwd")
        return self.act(act) if self.act is not None else act

    def __repr__(self):
        shape = self.weight.shape
        return "Dense(%s -> %d, %s)" % (shape[1] if shape and shape[1] else None, shape[0],
                                        self.act._act_type if self.act else "linear")


class Dropout(HybridBlock):
    """Zeroes a fraction `rate` of the elements in training mode (autograd.record or
    train_mode), scaling the rest by 1/(1-rate)."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            kw = {"axes": self._axes} if self._axes else {}
            return F.Dropout(x, p=self._rate, name="fwd", **kw)
        return F._copy(x)


class BatchNorm(HybridBlock):
    """Batch normalization over `axis` with moving statistics (updated in training mode)."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        with self.name_scope():
            self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                         shape=(in_channels,), init=gamma_initializer,
                                         allow_deferred_init=True, differentiable=scale)
            self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                        shape=(in_channels,), init=beta_initializer,
                                        allow_deferred_init=True, differentiable=center)
            self.running_mean = self.params.get("running_mean", grad_req="null",
                                                shape=(in_channels,),
                                                init=running_mean_initializer,
                                                allow_deferred_init=True, differentiable=False)
            self.running_var = self.params.get("running_var", grad_req="null",
                                               shape=(in_channels,),
                                               init=running_variance_initializer,
                                               allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        # the statistics and affine parameters stay float32 for 16-bit data, as in MXNet
        if str(dtype) in ("float16", "bfloat16"):
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)


class Embedding(HybridBlock):
    """Maps integer indices to rows of a (input_dim, output_dim) weight."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        if sparse_grad:
            raise ValueError("Embedding(sparse_grad=True): symnet has no sparse gradients")
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)


class Flatten(HybridBlock):
    """(N, ...) -> (N, product of the rest)."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)


class _Norm(HybridBlock):
    """Shared by LayerNorm, InstanceNorm and GroupNorm: gamma and beta of `size` channels."""

    def _affine(self, shape, center, scale, beta_initializer, gamma_initializer):
        with self.name_scope():
            self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                         shape=shape, init=gamma_initializer,
                                         allow_deferred_init=True)
            self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                        shape=shape, init=beta_initializer,
                                        allow_deferred_init=True)


class LayerNorm(_Norm):
    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis}
        self._affine((in_channels,), center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        return F.LayerNorm(x, gamma, beta, **self._kwargs)


class InstanceNorm(_Norm):
    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        if axis != 1:
            raise ValueError("InstanceNorm: only axis=1 (channels first) is supported")
        self._kwargs = {"eps": epsilon}
        self._affine((in_channels,), center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        return F.InstanceNorm(x, gamma, beta, name="fwd", **self._kwargs)


class GroupNorm(_Norm):
    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups}
        # MXNet 1.9's GroupNorm has one gamma/beta per group
        self._affine((num_groups,), center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        return F.GroupNorm(x, gamma, beta, **self._kwargs)


class Lambda(Block):
    """Wraps a function (or the name of an mx.nd function) as a Block."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            from ... import ndarray as nd
            function = getattr(nd, function)
        self._func = function

    def forward(self, *args):
        return self._func(*args)


class HybridLambda(HybridBlock):
    """Wraps a function F, x, ... -> output (or an operator name) as a HybridBlock."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            name = function
            self._func = lambda F, *args: getattr(F, name)(*args)
        else:
            self._func = function

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)


# ---- activations --------------------------------------------------------------------------
class Activation(HybridBlock):
    """relu, sigmoid, tanh, softrelu or softsign."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return "Activation(%s)" % self._act_type


class LeakyReLU(HybridBlock):
    def __init__(self, alpha, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")


class PReLU(HybridBlock):
    def __init__(self, alpha_initializer=None, in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,),
                                         init=alpha_initializer or _init.Constant(0.25))

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")


class Swish(HybridBlock):
    """x * sigmoid(beta * x)."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")


class BatchNormReLU(BatchNorm):
    """BatchNorm followed by relu (MXNet runs them as one op, contrib.BatchNormWithReLU; the
    values and the parameters are those of BatchNorm then Activation('relu'))."""

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)
        return F.Activation(out, act_type="relu", name="relu")
