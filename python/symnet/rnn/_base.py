"""The core of mx.rnn's legacy symbolic cells: RNNParams (the shared variables), BaseRNNCell (state
bookkeeping, begin_state, gate-wise weight packing, unroll) and the sequence-shape helpers the
cells share."""
from .. import ndarray, symbol
from ..base import string_types


def _cells_state_info(cells):
    return sum([c.state_info for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def _cells_unpack_weights(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def _cells_pack_weights(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """Brings `inputs` (one symbol holding every step, or a list with one symbol per step) into the
    form `merge` asks for: False gives a list of per-step symbols, True one symbol with the steps on
    the time axis of `layout`, None leaves the form as it is. Returns (inputs, time axis)."""
    assert inputs is not None, \
        "unroll(inputs=None) is no longer supported: make the input variables and pass them in"
    axis = layout.find('T')
    in_axis = axis if in_layout is None else in_layout.find('T')
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            assert len(inputs.list_outputs()) == 1, \
                "unroll takes one symbol with a single output (or a list of per-step symbols), " \
                "not a grouped symbol: pass list(inputs) instead"
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    else:
        assert length is None or len(inputs) == length, \
            "unroll got %d input steps for length %s" % (len(inputs), length)
        if merge is True:
            steps = [symbol.expand_dims(step, axis=axis) for step in inputs]
            inputs = symbol.Concat(*steps, dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


def _zeros_batched_like(like, like_axis):
    """A begin_state func: zeros whose batch dim (the 'N' of the state's __layout__), when given
    as 0, is that of `like` along like_axis. MXNet's zeros of shape (0, hidden) learn the batch
    size from the FullyConnected or Convolution reading them; symnet's shape rules of those ops
    infer no input dim from their output, so unroll ties the batch to the inputs instead."""

    def func(name=None, shape=None, **kwargs):
        layout = kwargs.get('__layout__') or 'NC'
        axis = layout.find('N')
        if shape is None or not 0 <= axis < len(shape) or shape[axis] != 0:
            return symbol.zeros(name=name, shape=shape, **kwargs)
        attrs = {k: v for k, v in kwargs.items() if k.startswith('__')}
        one = tuple(1 if i == axis else d for i, d in enumerate(shape))
        fill = {k: v for k, v in kwargs.items() if not k.startswith('__')}
        return symbol.broadcast_like(symbol.zeros(shape=one, name='%s_one' % name, **fill), like,
                                     lhs_axes=(axis,), rhs_axes=(like_axis,), name=name, attr=attrs)
    return func


def _begin_state_like(cell, inputs, layout):
    """cell.begin_state() with zero states whose batch size follows `inputs` (one symbol in
    `layout`, or a list of (batch, ...) steps)."""
    if isinstance(inputs, symbol.Symbol):
        like, axis = inputs, layout.find('N')
    else:
        like, axis = inputs[0], 0
    return cell.begin_state(func=_zeros_batched_like(like, axis))


class RNNParams(object):
    """The variables of one or more cells, by name: cells that share an RNNParams share weights.

    Parameters
    ----------
    prefix : str
        Put in front of every name asked for.
    """

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable prefix + name, made with symbol.Variable(**kwargs) on first request."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell(object):
    """Base of the symbolic RNN cells: one step is __call__(inputs, states), unroll repeats it.

    Parameters
    ----------
    prefix : str
        Prefix of the node names, and of the weight names when `params` is None.
    params : RNNParams or None
        Variables shared with other cells; a new container (with `prefix`) when None.
    """

    def __init__(self, prefix='', params=None):
        self._own_params = params is None
        if params is None:
            params = RNNParams(prefix)
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restarts the step and begin-state counters (node names t0, t1, ... and begin_state_0,
        ...) of this cell and the cells it holds, for building another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, '_cells', ()):
            cell.reset()

    def __call__(self, inputs, states):
        """One time step: (output, new states) for `inputs` (batch, features) and `states`
        (begin_state() or the states of the previous step)."""
        raise NotImplementedError()

    @property
    def params(self):
        """The RNNParams of this cell. Asking for it counts as sharing it (containers given their
        own params then refuse this cell), as in MXNet."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """A dict per state: its 'shape' (0 for the batch size) and '__layout__'."""
        raise NotImplementedError()

    @property
    def state_shape(self):
        """The shape of each state."""
        return [info['shape'] for info in self.state_info]

    @property
    def _gate_names(self):
        """Suffixes of the gates packed in one weight matrix, in their order there."""
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """The states for the first step: func(name=<prefix>begin_state_<n>, **kwargs, **info)
        for each entry of state_info. func may be symbol.zeros (the default), symbol.Variable (to
        feed the states), a random sampler, ..."""
        assert not self._modified, \
            "this cell is wrapped by a modifier cell (ZoneoutCell, ResidualCell, ...): " \
            "use the modifier cell instead of this one"
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)  # later states see earlier ones' keys, as in MXNet
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter), **kwargs))
        return states

    def unpack_weights(self, args):
        """A copy of `args` (name -> NDArray) with this cell's packed i2h/h2h weights and biases
        split into one array per gate (<prefix>i2h_f_weight, ...); pack_weights undoes it."""
        args = args.copy()
        gates = self._gate_names
        if not gates:
            return args
        h = self._num_hidden
        for group in ('i2h', 'h2h'):
            weight = args.pop('%s%s_weight' % (self._prefix, group))
            bias = args.pop('%s%s_bias' % (self._prefix, group))
            for j, gate in enumerate(gates):
                rows = slice(j * h, (j + 1) * h)
                args['%s%s%s_weight' % (self._prefix, group, gate)] = weight[rows].copy()
                args['%s%s%s_bias' % (self._prefix, group, gate)] = bias[rows].copy()
        return args

    def pack_weights(self, args):
        """A copy of `args` with the per-gate arrays of unpack_weights stacked back into this
        cell's i2h/h2h weight and bias."""
        args = args.copy()
        gates = self._gate_names
        if not gates:
            return args
        for group in ('i2h', 'h2h'):
            for kind in ('weight', 'bias'):
                parts = [args.pop('%s%s%s_%s' % (self._prefix, group, gate, kind)) for gate in gates]
                args['%s%s_%s' % (self._prefix, group, kind)] = ndarray.concat(*parts, dim=0)
        return args

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Applies the cell `length` times.

        Parameters
        ----------
        length : int
            The number of steps.
        inputs : Symbol or list of Symbol
            One symbol of shape (batch, length, ...) for layout 'NTC' or (length, batch, ...) for
            'TNC', or a list of `length` symbols of shape (batch, ...).
        begin_state : list of Symbol, optional
            The first step's states; begin_state() when None.
        layout : str
            'NTC' or 'TNC': where the time axis is in `inputs` and in merged outputs.
        merge_outputs : bool or None
            True: one symbol with all the steps' outputs, False: a list, None: whichever the cell
            makes anyway.

        Returns
        -------
        (outputs, states): the outputs as merge_outputs asks, and the last step's states.
        """
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        states = _begin_state_like(self, inputs, layout) if begin_state is None else begin_state
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """activation applied to inputs: an Activation node for a name ('tanh'), else a call."""
        if isinstance(activation, string_types):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
