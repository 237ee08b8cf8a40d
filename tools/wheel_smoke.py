"""The wheel's smoke test (tools/wheel_check.sh runs it in a fresh venv, from outside the source
tree, with nothing installed but the wheel and numpy): a small network trains with AMP (bfloat16,
dynamic loss scaling, multi-precision SGD) to high accuracy, and its checkpoint loads back."""
import os
import sys
import tempfile

import numpy as np

import symnet as mx

here = os.path.dirname(os.path.abspath(mx.__file__))
assert "site-packages" in here, "symnet was imported from %s, not from the installed wheel" % here
print("symnet %s from %s; features: %s" % (mx.__version__, here,
      ", ".join(k for k, v in sorted(mx.features().items()) if v == "1")))

rng = np.random.RandomState(0)
x = rng.normal(size=(512, 16)).astype(np.float32)
y = (x[:, :4].sum(axis=1) > 0).astype(np.float32)
train = mx.io.NDArrayIter(x[:384], y[:384], batch_size=32, shuffle=True)
val = mx.io.NDArrayIter(x[384:], y[384:], batch_size=32)

net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=32, name="fc1")
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=2, name="fc2"), name="softmax")
mx.amp.init("bfloat16")
mod = mx.mod.Module(net, context=mx.cpu())
mx.amp.init_trainer(mod)
mod.fit(train, num_epoch=6, optimizer="sgd", optimizer_params={"learning_rate": 0.2, "momentum": 0.9},
        initializer=mx.init.Xavier())
accuracy = dict(mod.score(val, "acc"))["accuracy"]
assert "amp_cast" in mod._exec.symbol.tojson(remove_amp_cast=False), "the bound graph is not the mixed-precision one"
assert accuracy > 0.9, accuracy
with tempfile.TemporaryDirectory() as d:
    prefix = os.path.join(d, "smoke")
    mod.save_checkpoint(prefix, 6, save_optimizer_states=True)
    back = mx.mod.Module.load(prefix, 6, load_optimizer_states=True)
    back.bind(val.provide_data, val.provide_label, for_training=False)
    assert dict(back.score(val, "acc"))["accuracy"] == accuracy
print("wheel smoke test passed: AMP bfloat16 accuracy %.3f, loss scale %s" % (accuracy, mod.loss_scale))
sys.exit(0)
