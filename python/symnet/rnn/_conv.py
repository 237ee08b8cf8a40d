"""Convolutional cells (Shi et al. 2015): RNN, LSTM and GRU steps whose input-to-state and
state-to-state transforms are convolutions, so the states are feature maps."""
import functools

from .. import symbol
from ._base import BaseRNNCell

_LEAKY = functools.partial(symbol.LeakyReLU, act_type='leaky', slope=0.2)


class BaseConvRNNCell(BaseRNNCell):
    """What the convolutional cells share: the two convolutions and the state shape, which is
    the i2h convolution's output for one input of `input_shape` (batch dim 0: inferred).
    The h2h convolution keeps the state's size, so its kernel must be odd."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                 i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, activation, prefix='', params=None,
                 conv_layout='NCHW'):
        super(BaseConvRNNCell, self).__init__(prefix=prefix, params=params)
        self._h2h_kernel = h2h_kernel
        assert h2h_kernel[0] % 2 == 1 and h2h_kernel[1] % 2 == 1, \
            "Only support odd number, get h2h_kernel= %s" % str(h2h_kernel)
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2,
                         h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation

        probe = symbol.Convolution(data=symbol.Variable('data'), num_filter=num_hidden,
                                   kernel=i2h_kernel, stride=i2h_stride, pad=i2h_pad,
                                   dilate=i2h_dilate, layout=conv_layout)
        out_shape = probe.infer_shape(data=input_shape)[1][0]
        self._state_shape = (0,) + tuple(out_shape[1:])

        self._iW = self.params.get('i2h_weight', init=i2h_weight_initializer)
        self._hW = self.params.get('h2h_weight', init=h2h_weight_initializer)
        self._iB = self.params.get('i2h_bias', init=i2h_bias_initializer)
        self._hB = self.params.get('h2h_bias', init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _state(self):
        return {'shape': self._state_shape, '__layout__': self._conv_layout}

    @property
    def state_info(self):
        return [self._state(), self._state()]

    def _conv_forward(self, inputs, states, name):
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name='%si2h' % name, data=inputs, num_filter=filters,
                                 kernel=self._i2h_kernel, stride=self._i2h_stride, pad=self._i2h_pad,
                                 dilate=self._i2h_dilate, weight=self._iW, bias=self._iB,
                                 layout=self._conv_layout)
        h2h = symbol.Convolution(name='%sh2h' % name, data=states[0], num_filter=filters,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate, pad=self._h2h_pad,
                                 stride=(1, 1), weight=self._hW, bias=self._hB,
                                 layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


_CONV_DOC = """
    Parameters
    ----------
    input_shape : tuple of int
        The shape of one step's input, batch dim included.
    num_hidden : int
        The number of state channels.
    h2h_kernel, h2h_dilate : tuple of int
        The state-to-state convolution (odd kernel; padded to keep the size).
    i2h_kernel, i2h_stride, i2h_pad, i2h_dilate : tuple of int
        The input-to-state convolution.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer or None
        Initializers of the two weights (None: the one given to init_params).
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer
        Initializers of the two biases.
    activation : str or callable
        The activation (an Activation act_type or a function of a symbol); leaky ReLU with
        slope 0.2 by default.
    prefix : str
        Prefix of the names.
    params : RNNParams or None
        Shared variables; the cell makes its own when None.
    conv_layout : str
        The convolutions' layout ('NCHW', 'NHWC', ...).
"""


class ConvRNNCell(BaseConvRNNCell):
    __doc__ = "Convolutional Elman cell: out = activation(conv_i(x) + conv_h(h))." + _CONV_DOC

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', activation=_LEAKY,
                 prefix='ConvRNN_', params=None, conv_layout='NCHW'):
        super(ConvRNNCell, self).__init__(
            input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
            i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, activation, prefix, params, conv_layout)

    @property
    def _gate_names(self):
        return ('',)

    @property
    def state_info(self):
        return [self._state()]

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    __doc__ = "Convolutional LSTM cell (gates i, f, c, o on the channel axis)." + _CONV_DOC

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', activation=_LEAKY,
                 prefix='ConvLSTM_', params=None, conv_layout='NCHW'):
        super(ConvLSTMCell, self).__init__(
            input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
            i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, activation, prefix, params, conv_layout)

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find('C'),
                                    name='%sslice' % name)
        in_gate = symbol.Activation(gates[0], act_type='sigmoid', name='%si' % name)
        forget_gate = symbol.Activation(gates[1], act_type='sigmoid', name='%sf' % name)
        candidate = self._get_activation(gates[2], self._activation, name='%sc' % name)
        out_gate = symbol.Activation(gates[3], act_type='sigmoid', name='%so' % name)
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * candidate,
                                        name='%sstate' % name)
        next_h = symbol._internal._mul(out_gate, self._get_activation(next_c, self._activation),
                                       name='%sout' % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    __doc__ = "Convolutional GRU cell (gates r, z, o; cuDNN's form)." + _CONV_DOC

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', activation=_LEAKY,
                 prefix='ConvGRU_', params=None, conv_layout='NCHW'):
        super(ConvGRUCell, self).__init__(
            input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
            i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
            h2h_bias_initializer, activation, prefix, params, conv_layout)

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    @property
    def state_info(self):
        return [self._state()]

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        # MXNet slices on the default axis 1 here whatever conv_layout says; kept as it is
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name='%s_i2h_slice' % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name='%s_h2h_slice' % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name)
        candidate = self._get_activation(i2h + reset_gate * h2h, self._activation, name='%s_h_act' % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * states[0],
                                        name='%sout' % name)
        return next_h, [next_h]
