"""Gluon's convolution and pooling layers (MXNet's gluon.nn conv_layers)."""
from ...base import numeric_types  # noqa: F401  (MXNet's conv_layers exports it)
from ..block import HybridBlock
from .basic_layers import Activation


def _tuple(x, n):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check_layout(block, layout, n):
    """Whether `layout` (None: channels first) is channels-last; refuses layouts that do not
    fit n spatial dims, as MXNet's layers do at construction."""
    if layout is None:
        return False
    if layout not in _LAYOUTS[n]:
        raise ValueError("%s: layout %s is not supported; with %d spatial dim(s) it must be %s"
                         % (type(block).__name__, layout, n, " or ".join(_LAYOUTS[n])))
    return layout == _LAYOUTS[n][1]


class _Conv(HybridBlock):
    """Convolution / Deconvolution over 1-3 spatial dims; in_channels 0 = inferred."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None, **kwargs):
        super().__init__(**kwargs)
        n = len(kernel_size)
        channels_last = _check_layout(self, layout, n)
        self._channels = channels
        self._in_channels = in_channels
        self._op_name = op_name
        self._kwargs = {"kernel": kernel_size, "stride": _tuple(strides, n),
                        "dilate": _tuple(dilation, n), "pad": _tuple(padding, n),
                        "num_filter": channels, "num_group": groups, "no_bias": not use_bias}
        if adj is not None:
            self._kwargs["adj"] = _tuple(adj, n)
        if layout is not None:
            self._kwargs["layout"] = layout
        with self.name_scope():
            in_per_group = in_channels // groups if in_channels else 0
            if channels_last:
                # channels-last weights are (out, kernel..., in/groups): MXNet's OHWI
                wshape = (channels,) + kernel_size + (in_per_group,)
            elif op_name == "Convolution":
                wshape = (channels, in_per_group) + kernel_size
            else:
                wshape = (in_channels, channels // groups) + kernel_size
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer,
                                          allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        # named 'fwd' as MXNet's layers name their op: the output is '<prefix>fwd_output'
        out = op(x, weight, name="fwd", **self._kwargs) if bias is None else \
            op(x, weight, bias, name="fwd", **self._kwargs)
        return self.act(out) if self.act is not None else out

    def _alias(self):
        return "conv"


class Conv1D(_Conv):
    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, _tuple(kernel_size, 1), strides, padding, dilation, groups,
                         layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv2D(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout="NCHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, _tuple(kernel_size, 2), strides, padding, dilation, groups,
                         layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv3D(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, _tuple(kernel_size, 3), strides, padding, dilation, groups,
                         layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv2DTranspose(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout="NCHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, _tuple(kernel_size, 2), strides, padding, dilation, groups,
                         layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=output_padding,
                         **kwargs)


class Conv1DTranspose(_Conv):
    """Transposed 1-d convolution (Deconvolution over width)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout="NCW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, _tuple(kernel_size, 1), strides, padding, dilation, groups,
                         layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=output_padding,
                         **kwargs)


class Conv3DTranspose(_Conv):
    """Transposed 3-d convolution (Deconvolution over depth, height and width)."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout="NCDHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, _tuple(kernel_size, 3), strides, padding, dilation, groups,
                         layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=output_padding,
                         **kwargs)


class _Pooling(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type,
                 layout, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        n = len(pool_size)
        _check_layout(self, layout, n)
        if strides is None:
            strides = pool_size
        self._kwargs = {"kernel": pool_size, "stride": _tuple(strides, n),
                        "pad": _tuple(padding, n), "global_pool": global_pool,
                        "pool_type": pool_type,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad
        if layout is not None:
            self._kwargs["layout"] = layout

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)


def _pool_class(name, n, pool_type, is_global):
    def __init__(self, pool_size=(2,) * n if not is_global else None, strides=None,
                 padding=0, layout=None, ceil_mode=False, count_include_pad=True, **kwargs):
        size = (1,) * n if is_global else _tuple(pool_size, n)
        _Pooling.__init__(self, size, None if is_global else strides,
                          0 if is_global else padding, ceil_mode, is_global, pool_type,
                          layout, count_include_pad if pool_type == "avg" else None, **kwargs)
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__":
                                    "%s pooling over %d spatial dims%s." % (
                                        pool_type, n, " (global)" if is_global else "")})


MaxPool1D = _pool_class("MaxPool1D", 1, "max", False)
MaxPool2D = _pool_class("MaxPool2D", 2, "max", False)
MaxPool3D = _pool_class("MaxPool3D", 3, "max", False)
AvgPool1D = _pool_class("AvgPool1D", 1, "avg", False)
AvgPool2D = _pool_class("AvgPool2D", 2, "avg", False)
AvgPool3D = _pool_class("AvgPool3D", 3, "avg", False)
GlobalMaxPool1D = _pool_class("GlobalMaxPool1D", 1, "max", True)
GlobalMaxPool2D = _pool_class("GlobalMaxPool2D", 2, "max", True)
GlobalMaxPool3D = _pool_class("GlobalMaxPool3D", 3, "max", True)
GlobalAvgPool1D = _pool_class("GlobalAvgPool1D", 1, "avg", True)
GlobalAvgPool2D = _pool_class("GlobalAvgPool2D", 2, "avg", True)
GlobalAvgPool3D = _pool_class("GlobalAvgPool3D", 3, "avg", True)


class ReflectionPad2D(HybridBlock):
    """Pads the two spatial axes of NCHW input by mirroring it at the borders (the edge row or
    column not repeated): (N, C, H, W) -> (N, C, H + 2p, W + 2p).

    padding: an int p for every side, or the 8 pad_width numbers of the Pad op (two per axis,
    the first four 0)."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise ValueError("ReflectionPad2D: padding must be an int or 8 numbers, not %r" % (padding,))
        self._padding = tuple(padding)

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
