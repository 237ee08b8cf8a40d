"""LossScaler: the dynamic loss scale of mixed-precision training (PyTorch GradScaler's rules).

Start at init_scale (2**16); after `scale_window` (2000) steps without overflow multiply by
`scale_factor` (2); on an overflow divide by it and restart the count; stay in [min, max].
A static scaler (dynamic=False, e.g. LossScaler(loss_scale=128)) never changes.
"""
from .. import _core


class LossScaler:
    def __init__(self, init_scale=2.0 ** 16, scale_factor=2.0, scale_window=2000, min_scale=1.0,
                 max_scale=2.0 ** 24, dynamic=True, loss_scale=None):
        if loss_scale is not None:  # MXNet's static form
            init_scale, dynamic = float(loss_scale), False
        if not (min_scale <= init_scale <= max_scale):
            raise ValueError("init_scale %g is outside [%g, %g]" % (init_scale, min_scale, max_scale))
        if scale_factor <= 1:
            raise ValueError("scale_factor must be > 1")
        self._scale = float(init_scale)
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)
        self.min_scale = float(min_scale)
        self.max_scale = float(max_scale)
        self.dynamic = bool(dynamic)
        self._clean_steps = 0
        self.num_overflows = 0

    @property
    def loss_scale(self):
        return self._scale

    def has_overflow(self, grads):
        """True when any gradient holds inf or nan: one fused multi_all_finite over all of them."""
        handles = [g.handle for g in grads if g is not None]
        if not handles:
            return False
        flag = _core.invoke("multi_all_finite", {"num_arrays": str(len(handles))}, handles, [])[0]
        return float(flag.asnumpy()[0]) == 0.0

    def update_scale(self, overflow):
        """Moves the scale after a step: halve on overflow, double after a clean window."""
        if overflow:
            self.num_overflows += 1
            self._clean_steps = 0
            if self.dynamic:
                self._scale = max(self.min_scale, self._scale / self.scale_factor)
            return
        self._clean_steps += 1
        if self.dynamic and self._clean_steps >= self.scale_window:
            self._scale = min(self.max_scale, self._scale * self.scale_factor)
            self._clean_steps = 0

    def state_dict(self):
        return {"loss_scale": self._scale, "clean_steps": self._clean_steps,
                "num_overflows": self.num_overflows, "scale_factor": self.scale_factor,
                "scale_window": self.scale_window, "min_scale": self.min_scale,
                "max_scale": self.max_scale, "dynamic": self.dynamic}

    def load_state_dict(self, state):
        self._scale = float(state["loss_scale"])
        self._clean_steps = int(state.get("clean_steps", 0))
        self.num_overflows = int(state.get("num_overflows", 0))
        for k in ("scale_factor", "scale_window", "min_scale", "max_scale", "dynamic"):
            if k in state:
                setattr(self, k, type(getattr(self, k))(state[k]))
