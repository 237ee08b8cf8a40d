"""atheris target: a .states file loaded into a bound Module (Module.load_optimizer_states: the C++
codec, then the Python checks against the network and the optimizer). Anything but a loaded state
or an MXNetError is a finding."""
import logging
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    import numpy as np
    import symnet as mx

_DIR = tempfile.mkdtemp(prefix="fuzz_states_")
_PATH = os.path.join(_DIR, "fuzz.states")


def _module(optimizer, **kw):
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc"),
                               name="softmax")
    mod = mx.mod.Module(net)
    mod.bind([("data", (4, 3))], [("softmax_label", (4,))])
    mod.init_params()
    mod.init_optimizer(optimizer=optimizer, optimizer_params=kw)
    return mod


MODULES = None
logging.disable(logging.WARNING)  # "the saved one is dropped" for every input with momentum


def one_input(data):
    global MODULES
    if MODULES is None:
        MODULES = [_module("sgd", momentum=0.9), _module("adam"), _module("sgd")]
    with open(_PATH, "wb") as f:
        f.write(data)
    for mod in MODULES:
        try:
            mod.load_optimizer_states(_PATH)
        except mx.MXNetError:
            continue
        assert isinstance(mod._optimizer.num_update, int)
        batch = mx.io.DataBatch([mx.nd.array(np.ones((4, 3)))], [mx.nd.array([0, 1, 0, 1])])
        try:
            mod.forward_backward(batch)
            mod.update()  # a loaded state must be usable
        except mx.MXNetError as e:
            raise AssertionError("a state file that loads breaks the next update: %s" % e)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
