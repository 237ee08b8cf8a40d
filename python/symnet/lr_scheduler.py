"""Learning-rate schedules (MXNet's), each with an optional linear warmup:
lr(num_update) for num_update counted from 1."""
import math


class LRScheduler:
    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        self.base_lr = base_lr
        self.warmup_steps = int(warmup_steps)
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_final_lr = base_lr
        if warmup_mode not in ("linear", "constant"):
            raise ValueError("warmup_mode must be 'linear' or 'constant'")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        frac = num_update / float(self.warmup_steps)
        return self.warmup_begin_lr + (self.warmup_final_lr - self.warmup_begin_lr) * frac

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        return self._lr(num_update)

    def _lr(self, num_update):
        raise NotImplementedError()


class FactorScheduler(LRScheduler):
    """lr = base_lr * factor^floor((num_update - 1) / step), clamped at stop_factor_lr: as
    MXNet's, the rate drops after update step, 2*step, ... (update step+1 is the first at the
    lower rate), and the warmup does not shift those points."""

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, **kw):
        super().__init__(base_lr, **kw)
        if step < 1:
            raise ValueError("step must be >= 1")
        self.step, self.factor, self.stop_factor_lr = step, factor, stop_factor_lr

    def _lr(self, num_update):
        # MXNet multiplies its base_lr by factor once per step passed (clamping at
        # stop_factor_lr each time); the same repeated products give the same floats
        # (1*0.1*0.1*0.1*0.1 is not 0.1**4). The last result is cached to continue from.
        n = max(num_update - 1, 0) // self.step
        done, lr = 0, self.base_lr
        cache = getattr(self, "_decayed", None)
        if cache is not None and cache[0] == self.base_lr and cache[1] <= n:
            done, lr = cache[1], cache[2]
        for _ in range(n - done):
            if self.factor == 1 or lr == self.stop_factor_lr:
                break
            lr *= self.factor
            if lr < self.stop_factor_lr:
                lr = self.stop_factor_lr
        self._decayed = (self.base_lr, n, lr)
        return lr


class MultiFactorScheduler(LRScheduler):
    """lr = base_lr * factor^(number of steps in `step` that num_update has passed)."""

    def __init__(self, step, factor=1, base_lr=0.01, **kw):
        super().__init__(base_lr, **kw)
        step = list(step)
        if any(b <= a for a, b in zip(step, step[1:])) or (step and step[0] < 1):
            raise ValueError("steps must be increasing and >= 1: %r" % step)
        self.step, self.factor = step, factor

    def _lr(self, num_update):
        passed = sum(1 for s in self.step if num_update > s)
        return self.base_lr * self.factor ** passed


class CosineScheduler(LRScheduler):
    """Cosine from base_lr down to final_lr over max_update steps (after the warmup)."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0, **kw):
        super().__init__(base_lr, **kw)
        self.max_update, self.final_lr = max_update, final_lr

    def _lr(self, num_update):
        if num_update >= self.max_update:
            return self.final_lr
        t = (num_update - self.warmup_steps) / float(self.max_update - self.warmup_steps)
        return self.final_lr + (self.base_lr - self.final_lr) * (1 + math.cos(math.pi * t)) / 2


class PolyScheduler(LRScheduler):
    """Polynomial decay: final_lr + (base_lr - final_lr) * (1 - t)^pwr over max_update steps."""

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, **kw):
        super().__init__(base_lr, **kw)
        self.max_update, self.pwr, self.final_lr = max_update, pwr, final_lr

    def _lr(self, num_update):
        if num_update >= self.max_update:
            return self.final_lr
        t = (num_update - self.warmup_steps) / float(self.max_update - self.warmup_steps)
        return self.final_lr + (self.base_lr - self.final_lr) * (1 - t) ** self.pwr
