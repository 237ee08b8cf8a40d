"""mx.optimizer.contrib: MXNet 1.9.1's contributed optimizers (GroupAdaGrad)."""
from .. import ndarray as nd
from .optimizer import Optimizer

__all__ = ["GroupAdaGrad"]


@Optimizer.register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one accumulated square per row of a 2-d weight: with
    g = clip(rescale_grad*grad), history += mean(g^2 over the row); w -= lr*g/sqrt(history + eps).
    No weight decay (wd must be 0). The state is the (rows, 1) history. (MXNet's sparse
    gradients take its group_adagrad_update op; symnet's gradients are dense.)"""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        assert len(weight.shape) == 2, "GroupAdaGrad updates 2-d weights"
        return nd.zeros((weight.shape[0], 1), weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        assert wd == 0, "Weight decay is not supported for GroupAdaGrad"
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        state[:] = state + nd.mean(nd.square(g), axis=1, keepdims=True)
        weight[:] = weight - lr * g / nd.sqrt(state + self.float_stable_eps)
