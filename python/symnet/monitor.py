"""mx.monitor.Monitor: statistics of every op's outputs (and inputs), the weights and the
auxiliary states of bound executors, every `interval` batches (MXNet's Monitor)."""
import logging
import math
import re

from . import ndarray as nd


def _mean_norm(x):
    """|x|_2 / sqrt(size): MXNet's default statistic, the root mean square."""
    return nd.norm(x) / math.sqrt(max(x.size, 1))


class Monitor:
    """Collects stat_func(array) of the tensors whose names match `pattern` during the batches
    where it is active (one in `interval`, from tic() to toc()).

    Names are those of MXNet's executor monitor: "<node>_output" for an op's output (or
    "<node>_<output name>" for ops with several), gradient nodes' outputs likewise,
    "<node>_<input name>" for inputs with monitor_all=True, and the argument and auxiliary
    names for the weights and states that toc() adds at the end of the batch.
    Module.fit(monitor=...) and Module.install_monitor() install it on the module's executors."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        if int(interval) < 1:
            raise ValueError("Monitor: interval=%r; expected a number of batches >= 1" % (interval,))
        self.interval = int(interval)
        self.stat_func = stat_func or _mean_norm
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []

    def stat_helper(self, name, array):
        """The executor's callback: the array is only valid during the call, so the statistic
        is computed here (it is a new array)."""
        if self.activated and self.re_prog.match(name):
            self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Installs the callback on an executor (several may share one Monitor)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        if exe not in self.exes:
            self.exes.append(exe)

    def tic(self):
        """Call before the batch's forward: starts collecting when this batch is one to show."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Call after the batch (forward, backward, update): adds the weights and auxiliary
        states, stops collecting and returns [(batch, name, text of the statistic)]."""
        if not self.activated:
            return []
        for exe in self.exes:
            named = list(zip(exe.symbol.list_arguments(), exe.arg_arrays)) + \
                list(zip(exe.symbol.list_auxiliary_states(), exe.aux_arrays))
            for name, array in named:
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        queue, self.queue = self.queue, []
        if self.sort:
            queue.sort(key=lambda item: item[1])
        res = []
        for step, name, values in queue:
            text = ""
            for v in values if isinstance(values, (list, tuple)) else [values]:
                v = v if isinstance(v, nd.NDArray) else nd.array(v)
                text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
            res.append((step, name, text))
        return res

    def toc_print(self):
        """toc(), logged one line per tensor."""
        for step, name, text in self.toc():
            logging.info("Batch: %7d %-30s %s", step, name, text)
