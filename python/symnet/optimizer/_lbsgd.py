"""mx.optimizer.LBSGD (MXNet 1.9.1's Large-Batch SGD), re-exported by optimizer.py.

It emulates a batch batch_scale times larger: the gradients of batch_scale updates of a weight
are summed, and every batch_scale-th update applies their mean with SGD (momentum, weight
decay, clipping as SGD's), at a learning rate multiplied by a warm-up factor. The factor grows
from 1 to batch_scale over warmup_epochs * updates_per_epoch updates ('linear', 'power2',
'sqrt'), or is LARS's layer-wise ratio sqrt(|w|^2 / (|g|^2 + wd*|w|^2)) clipped to [0.01, 100]
('lars'). The updates in between leave the weight as it is.

MXNet's quirks are kept: the first gradient of a macro-batch is held by reference (not copied),
so a gradient array the next backward overwrites is summed as its new value; the update count
keeps growing across macro-batches (a warm-up counts macro-batch updates from
begin_epoch * updates_per_epoch + 1)."""
import logging
import math
import warnings

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer


@Optimizer.register
class LBSGD(Optimizer):
    """Large-batch SGD (see the module docstring)."""

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear", warmup_epochs=5,
                 batch_scale=1, updates_per_epoch=32, begin_epoch=0, num_epochs=60, **kwargs):
        super().__init__(multi_precision=multi_precision, **kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info("(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, updates_per_epoch=%d)",
                     batch_scale, warmup_epochs, warmup_strategy, updates_per_epoch)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            momentum = nd.zeros(weight.shape, weight.context, dtype=np.float32) if self.momentum != 0.0 else None
            return (momentum, master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow convergence. "
                          "Consider using multi_precision=True option of the SGD optimizer")
        if self.momentum != 0.0:
            return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _get_lbmult(self, nup):
        """The warm-up factor after `nup` updates: 1 growing to batch_scale."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == "linear":
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == "power2":
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == "sqrt":
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _get_lars(self, weight, g, wd):
        """LARS's ratio for this weight, clipped to [0.01, 100]."""
        weight2, grad2 = self._l2norm(weight), self._l2norm(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _l2norm(self, v):
        """The squared L2 norm (MXNet's name)."""
        return (v * v).asnumpy().sum()

    def _reset_cum_gradient(self, index):
        self.cumgrads[index]["cum_grad"] = 0

    def _get_cum_gradient(self, index):
        return self.cumgrads.get(index, {})

    def _put_cum_gradient(self, index, cgrad):
        self.cumgrads[index] = cgrad

    def _cumulate_gradient(self, grad, index):
        """Adds grad to the weight's running sum; returns {'cum_grad', 'num_cums'}."""
        cgrad = self._get_cum_gradient(index)
        if cgrad and cgrad["num_cums"] > 0:
            cum_grad, num_cums = cgrad["cum_grad"] + grad, cgrad["num_cums"] + 1
        else:
            cum_grad, num_cums = grad, self.init_updates + 1
        cgrad = {"cum_grad": cum_grad, "num_cums": num_cums}
        self._put_cum_gradient(index, cgrad)
        return cgrad

    def update(self, index, weight, grad, state):
        assert isinstance(weight, nd.NDArray)
        assert isinstance(grad, nd.NDArray)
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale != 0:
            return  # MXNet runs sgd_update with lr 0 here, which leaves the weight as it is
        grad = cgrad["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lbmult = self._get_lars(weight, grad, wd)
        else:
            lbmult = self._get_lbmult(cgrad["num_cums"])
        kwargs = {"lr": lr * lbmult, "wd": wd, "rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        if not isinstance(state, (list, tuple)):
            if state is not None:
                nd.sgd_mom_update(weight, grad, state, out=weight, **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, **kwargs)
        elif state[0] is not None:
            nd.mp_sgd_mom_update(weight, grad, state[0], state[1], out=weight, **kwargs)
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, **kwargs)
        self._reset_cum_gradient(index)
