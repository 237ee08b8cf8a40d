"""LossScaler: the loss scale of mixed-precision training (PyTorch GradScaler's rules).

Start at init_scale (2**16); after `scale_window` (2000) steps without overflow multiply by
`scale_factor` (2); on an overflow divide by it and restart the count; stay in [min, max].
A static scaler (dynamic=False, e.g. LossScaler(loss_scale=128)) never changes.

The rules, the step's skip-or-update decision and the saved state live in C++
(symnet::train::LossScaler), shared with the C++ Trainer; this class is its Python face.
"""
import json

from ... import _core


class LossScaler:
    def __init__(self, init_scale=2.0 ** 16, scale_factor=2.0, scale_window=2000, min_scale=1.0,
                 max_scale=2.0 ** 24, dynamic=True, loss_scale=None):
        if loss_scale is not None:  # MXNet's static form
            init_scale, dynamic = float(loss_scale), False
        try:
            self._impl = _core.LossScaler(float(init_scale), float(scale_factor), int(scale_window),
                                          float(min_scale), float(max_scale), bool(dynamic))
        except RuntimeError as e:
            raise ValueError(str(e)) from None

    @property
    def loss_scale(self):
        return self._impl.scale

    scale_factor = property(lambda self: self._impl.factor)
    scale_window = property(lambda self: self._impl.window)
    min_scale = property(lambda self: self._impl.min_scale)
    max_scale = property(lambda self: self._impl.max_scale)
    dynamic = property(lambda self: self._impl.dynamic)
    num_overflows = property(lambda self: self._impl.num_overflows)

    def has_overflow(self, grads):
        """True when any gradient holds inf or nan: one fused multi_all_finite over all of them."""
        return _core.LossScaler.has_overflow([g.handle for g in grads if g is not None])

    def update_scale(self, overflow):
        """Moves the scale after a step: halve on overflow, double after a clean window."""
        self._impl.update(bool(overflow))

    def check_step(self, grads):
        """The mixed-precision step's decision: checks every gradient and moves the scale;
        returns the factor the gradients carry when the update may go ahead, else 0 (skip)."""
        return self._impl.check_step([g.handle for g in grads if g is not None])

    def state_dict(self):
        return json.loads(self._impl.to_json())

    def load_state_dict(self, state):
        self._impl.from_json(json.dumps(state))
