"""Differential tests of gluon.model_zoo.vision against MXNet 1.9.1, network by network: MXNet
builds the network, gives it random parameters (random BatchNorm statistics too) and writes them
with save_parameters and export (tests/mxnet_parity/make_zoo_reference.py, run here under the
MXNet venv tools/run_tests.sh makes, into a temporary folder removed after each network). symnet's
model zoo must load the save_parameters file (structural names) and give MXNet's inference output,
training-mode output, parameter gradients and BatchNorm statistics; SymbolBlock.imports of the
export files must do the same; and symnet's own export must write MXNet's parameter names.

Tolerances: outputs rtol 1e-4 (atol 1e-5, or 1e-4 of the output's largest value where that is
larger: random deep nets reach values of hundreds); gradients rtol 1e-3, with the float64 arbiter
of parity_checks.py where float32 rounding alone moves a badly conditioned gradient further.
Dropout rates are 0 on both sides (a training-mode check must be deterministic)."""
import json
import os
import shutil
import subprocess
import time

import numpy as np
import pytest

import symnet as mx
from parity_checks import MXNET_PYTHON, REPO, Float64Arbiter, close, compare_gradients, manifest

ZOO = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
       "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
       "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
       "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25",
       "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
       "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
       "squeezenet1.0", "squeezenet1.1", "inceptionv3"]
# What the test suite (and CI) runs by default: every family and every block kind of the zoo
# (ResNet v1/v2 basic and bottleneck blocks, MobileNet v1/v2 at the widest and narrowest
# multiplier, VGG plain and with BatchNorm, AlexNet, DenseNet, SqueezeNet 1.0/1.1, Inception v3).
# The rest (deeper stacks of the same blocks: ResNet-34/101/152, DenseNet-161/169/201,
# VGG-13/16/19, the middle MobileNet widths) repeat those code paths at more depth and take two
# thirds of the time; SYMNET_ZOO=all runs them too, and they are run before a release.
ZOO_DEFAULT = ["resnet18_v1", "resnet50_v1", "resnet18_v2", "resnet50_v2", "mobilenet1.0",
               "mobilenet0.25", "mobilenetv2_1.0", "mobilenetv2_0.25", "vgg11", "vgg11_bn",
               "alexnet", "densenet121", "squeezenet1.0", "squeezenet1.1", "inceptionv3"]
if os.environ.get("SYMNET_ZOO") != "all":
    ZOO = [n for n in ZOO if n in ZOO_DEFAULT]
SCRIPT = os.path.join(REPO, "tests", "mxnet_parity", "make_zoo_reference.py")


class _References:
    """MXNet's reference files, made by one MXNet process (make_zoo_reference.py --serve) a
    network ahead of the test that reads them: on 2 cores MXNet's work on the next network
    overlaps symnet's on this one. Each test deletes its network's files when done."""

    def __init__(self, root, names):
        self.root = root
        self.log = open(root / "mxnet.log", "w")
        # one OpenMP thread for MXNet: symnet, running beside it, keeps the rest
        env = dict(os.environ, OMP_NUM_THREADS="2")
        self.proc = subprocess.Popen([MXNET_PYTHON, SCRIPT, "--serve", str(root / "refs")] + names,
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        (root / "refs").mkdir()

    def take(self, name):
        done, failed = self.root / "refs" / name, self.root / "refs" / (name + ".failed")
        deadline = time.time() + 600
        while not done.exists():
            if failed.exists():
                pytest.fail("MXNet could not make the %s reference:\n%s" % (name, failed.read_text()))
            if self.proc.poll() is not None and not done.exists():
                pytest.fail("the MXNet reference process ended (status %s) before %s:\n%s"
                            % (self.proc.returncode, name, (self.root / "mxnet.log").read_text()[-3000:]))
            if time.time() > deadline:
                pytest.fail("no MXNet reference for %s after 600 s" % name)
            time.sleep(0.02)
        with open(done / "names.json") as f:
            names = json.load(f)
        return done, dict(np.load(done / "ref.npz")), names

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")
def references(request, tmp_path_factory):
    manifest()  # skips or fails as every parity test does when MXNet could not be set up
    if not os.path.exists(MXNET_PYTHON):
        reason = "no MXNet venv at %s (tools/run_tests.sh makes it)" % MXNET_PYTHON
        if os.environ.get("SYMNET_REQUIRE_MXNET_REFS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    # the networks this session runs, in its order (the serving process follows it)
    names = [item.callspec.params["name"] for item in request.session.items
             if getattr(item, "originalname", None) == "test_model_zoo_matches_mxnet"]
    refs = _References(tmp_path_factory.mktemp("zoo"), names)
    yield refs
    refs.close()


def _dropout_off(block):
    if isinstance(block, mx.gluon.nn.Dropout):
        block._rate = 0.0
    for child in block._children.values():
        _dropout_off(child)


def _zoo_net(name, params_file, dtype="float32", hybridize=True):
    with mx.name.NameManager():  # a fresh process's names: resnetv10_, not resnetv13_
        net = mx.gluon.model_zoo.vision.get_model(name, classes=10)
    _dropout_off(net)
    net.load_parameters(params_file)
    if dtype != "float32":
        net.cast(dtype)
    if hybridize:
        net.hybridize()
    return net


def _outputs_close(actual, expected, what):
    close(actual, expected, 1e-4, what)


def _train(block, x, head):
    with mx.autograd.record(train_mode=True):
        y = block(x)
    y.backward(mx.nd.array(head, dtype=y.dtype))
    return y.asnumpy()


class _Kinks:
    """Which side of each relu / clip kink every element fell on, and which element won each
    max-pooling window, in a float32 imperative run, replayed in the float64 run that
    arbitrates it. Without this a relu input within float32 rounding of 0, or a pooling window
    whose two largest inputs are that close (a few per network among millions, where forward
    errors reach 1e-5), goes the other way in float64, and every gradient below it moves by
    ~1e-2, with both answers right. The model zoo's kinks all come through nd.Activation(relu),
    nd.clip (relu6) and nd.Pooling(max), patched here while a run is recorded or replayed."""

    BOOST = 1e-3  # replay: the float32 winners of max pooling, scaled up by this to win again

    def __init__(self):
        self.masks, self.mode, self.next = [], None, 0

    def run(self, mode):
        self.mode, self.next = mode, 0
        return self

    def __enter__(self):
        nd = mx.nd
        self.saved = nd.Activation, nd.clip, nd.Pooling
        activation, clip, pooling = self.saved

        def relu_or_other(data, act_type=None, **kw):
            if act_type != "relu":
                return activation(data, act_type=act_type, **kw)
            if self.mode == "record":
                self.masks.append(data.asnumpy() > 0)
                return activation(data, act_type=act_type, **kw)
            return data * self._take(data, "relu")

        def clip_(data, a_min, a_max, **kw):
            if self.mode == "record":
                x = data.asnumpy()
                self.masks.append((x <= a_min, x >= a_max))
                return clip(data, a_min, a_max, **kw)
            low, high = self._take(data, "clip")
            return data * (1 - low - high) + low * a_min + high * a_max

        def pooling_(data, **kw):
            if kw.get("pool_type") != "max":
                return pooling(data, **kw)
            if self.mode == "record":
                # the inputs the pooling's gradient reaches are the windows' winners
                probe = data.detach()
                probe.attach_grad()
                with mx.autograd.record():
                    out = pooling(probe, **kw)
                out.backward(mx.nd.ones(out.shape, dtype=out.dtype))
                self.masks.append(("pool", probe.grad.asnumpy() > 0))
                return pooling(data, **kw)
            winners = self._take(data, "pool")
            return pooling(data * (1 + self.BOOST * winners), **kw) / (1 + self.BOOST)

        nd.Activation, nd.clip, nd.Pooling = relu_or_other, clip_, pooling_
        return self

    def _take(self, data, kind):
        mask = self.masks[self.next]
        self.next += 1
        if kind == "relu":
            assert not isinstance(mask, tuple) and mask.shape == data.shape
            return mx.nd.array(mask, dtype=data.dtype)
        if kind == "pool":
            assert mask[0] == "pool" and mask[1].shape == data.shape
            return mx.nd.array(mask[1], dtype=data.dtype)
        assert isinstance(mask, tuple) and mask[0].shape == data.shape
        return tuple(mx.nd.array(m, dtype=data.dtype) for m in mask)

    def __exit__(self, *exc):
        mx.nd.Activation, mx.nd.clip, mx.nd.Pooling = self.saved
        return False


def _float64_reference(name, params_file, ref, keys, kinks):
    """symnet's float64 training output, gradients and BatchNorm statistics of the same
    network, parameters and input, taking the float32 imperative run's side of every kink: the
    arbiter where float32 results differ from MXNet's by more than the tolerance."""
    def compute():
        net = _zoo_net(name, params_file, "float64", hybridize=False)
        with kinks.run("replay"):
            y = _train(net, mx.nd.array(ref["input:data"], dtype="float64"), ref["head_grad:0"])
        params = net._collect_params_with_prefix()
        exact = {k: params[k].grad().asnumpy() for k in keys if params[k].grad_req != "null"}
        exact.update({_STATE + k: params[k].data().asnumpy() for k in keys
                      if k.endswith(("running_mean", "running_var"))})
        exact[_OUTPUT] = y
        return exact
    return Float64Arbiter(name, compute)


class _GraphArbiter(Float64Arbiter):
    """The same float64 answer for a graph run (SymbolBlock.imports). Its float32 rounding
    differs from the imperative run's, so it may take the other side of a kink; where the
    per-gradient rule fails, the gradient must still be within 25% of the float64 one (a wrong
    gradient is off by its whole size), the imperative run of the same network having passed
    the strict rules."""

    def __init__(self, strict):
        def shared():
            if strict.grads is None:
                strict.grads = strict.compute()
            return strict.grads
        super().__init__(strict.name, shared)
        self.kink_moved = []

    def check(self, arg, idx, ours, theirs):
        try:
            super().check(arg, idx, ours, theirs)
        except AssertionError:
            exact = self.grads[arg] if idx is None else self.grads[arg].reshape(-1)[idx]
            err = _rel_l2(ours, exact)
            assert err <= 0.25, "%s gradient of %s: %.2e from the float64 one" % (self.name, arg, err)
            self.kink_moved.append((arg, err))

    def finish(self):
        """No network-wide rule here: one kink taken the other way moves every gradient below
        it, so the RMS over the network says nothing about the arithmetic (the imperative run
        above is held to it)."""


_OUTPUT, _STATE = "(training output)", "(state) "


def _rel_l2(a, b):
    return float(np.linalg.norm(a - b)) / (float(np.linalg.norm(b)) or 1.0)


def _close_or_as_exact(ours, theirs, exact, key, what):
    """rtol 1e-4 to MXNet's value; where float32 rounding in a deep net's training-mode
    BatchNorms (2x2 maps at batch 2) moves values further, the float64 result decides: ours must
    be as close to it as MXNet's (within 3x, or 1e-4 relative L2)."""
    try:
        _outputs_close(ours, theirs, what)
    except AssertionError:
        if exact.grads is None:
            exact.grads = exact.compute()
        err_ours, err_theirs = _rel_l2(ours, exact.grads[key]), _rel_l2(theirs, exact.grads[key])
        assert err_ours <= max(1e-4, 3 * err_theirs), (
            "%s: symnet's float32 result is %.2e from the float64 one (relative L2), MXNet's %.2e"
            % (what, err_ours, err_theirs))


def _check_state(name, key, ours, theirs, initial, x, exact, what):
    """BatchNorm running statistics after one training forward. MXNet 1.9.1 updates them in
    its backward pass, which it skips for a BatchNorm no gradient reaches (ResNet v2's input
    BatchNorm: the data needs no gradient and gamma, beta are fixed), so there they keep their
    initial values; symnet updates them in the training forward, whether or not a backward
    follows. There the update is checked against numpy (momentum 0.9, biased batch variance)."""
    if np.array_equal(theirs, initial) and not np.array_equal(ours, initial):
        assert key == "features.0." + key.split(".")[-1] and name.endswith("_v2"), (
            "%s %s: MXNet left it unchanged, symnet did not" % (name, key))
        xs = x.asnumpy().astype(np.float64)
        batch = xs.mean(axis=(0, 2, 3)) if key.endswith("mean") else xs.var(axis=(0, 2, 3))
        close(ours, 0.9 * initial + 0.1 * batch, 1e-4, "%s %s (%s)" % (name, key, what))
        return
    _close_or_as_exact(ours, theirs, exact, _STATE + key,
                       "%s BatchNorm state %s (%s)" % (name, key, what))


def _check_training(name, block, grad_of, aux_of, ref, initial, exact, what, trainable, kinks=None):
    """trainable: the structural names of the network's parameters that get a gradient (from
    symnet's network, not from the reference): each must have been compared with MXNet's."""
    x = mx.nd.array(ref["input:data"])
    if kinks is None:
        y = _train(block, x, ref["head_grad:0"])
    else:
        with kinks.run("record"):
            y = _train(block, x, ref["head_grad:0"])
    _close_or_as_exact(y, ref["out_train:0"], exact, _OUTPUT,
                       "%s training output (%s)" % (name, what))
    asked = []

    def grad_of_recorded(k):
        asked.append(k)
        return grad_of(k)

    checked = compare_gradients("%s (%s)" % (name, what), ref, grad_of_recorded, exact)
    # every parameter with a gradient was compared, once (a reference without gradients, or a
    # comparison that skips them, checks nothing and must not pass)
    assert trainable, "%s: no parameter with a gradient" % name
    assert sorted(asked) == sorted(trainable) and checked == len(trainable), (
        "%s (%s): %d gradients compared with MXNet's, the network has %d parameters with one; "
        "not compared: %s, compared but not trainable: %s" % (
            name, what, checked, len(trainable), sorted(set(trainable) - set(asked))[:5],
            sorted(set(asked) - set(trainable))[:5]))
    for key in (k[4:] for k in ref if k.startswith("aux:")):
        _check_state(name, key, aux_of(key), ref["aux:" + key], initial[key], x, exact, what)


@pytest.mark.parametrize("name", ZOO)
def test_model_zoo_matches_mxnet(name, references, tmp_path):
    folder, ref, names = references.take(name)
    try:
        _check_network(name, folder, ref, names, tmp_path)
    finally:
        shutil.rmtree(folder)  # lets the MXNet process write the next network


def _check_network(name, src, ref, names, tmp_path):
    x = mx.nd.array(ref["input:data"])
    params_file = str(src / "gluon.params")
    initial = {k: v.asnumpy() for k, v in mx.nd.load(params_file).items()}

    # 1. MXNet's save_parameters file (structural names) in symnet's model zoo network, run
    # imperatively: training checked strictly (the float64 arbiter follows its kinks)
    net = _zoo_net(name, params_file, hybridize=False)
    structural = net._collect_params_with_prefix()
    assert sorted(structural) == sorted(names), "structural names differ from MXNet's"
    assert {k: p.name for k, p in structural.items()} == names, "prefixed names differ from MXNet's"
    # the parameters that get a gradient: not BatchNorm's running statistics, nor the gamma and
    # beta of BatchNorm(scale=False, center=False) (grad_req "null" in either framework)
    trainable = [k for k, p in structural.items() if p.grad_req != "null"]
    _outputs_close(net(x).asnumpy(), ref["out_infer:0"], "%s inference output" % name)
    kinks = _Kinks()
    exact = _float64_reference(name, params_file, ref, names, kinks)
    _check_training(name, net, lambda k: structural[k].grad().asnumpy(),
                    lambda k: structural[k].data().asnumpy(), ref, initial, exact,
                    "load_parameters, imperative", trainable, kinks)

    # 2. the same network hybridized, in inference (training through a graph: step 4)
    net = _zoo_net(name, params_file)
    _outputs_close(net(x).asnumpy(), ref["out_infer:0"], "%s inference output (hybridized)" % name)

    # 3. symnet's export writes the names MXNet's export wrote
    net.export(str(tmp_path / "ours"), 0)
    ours = set(mx.nd.load(str(tmp_path / "ours-0000.params")))
    theirs = set(mx.nd.load(str(src / "export-0000.params")))
    assert ours == theirs, "export names: only symnet %s, only MXNet %s" % (
        sorted(ours - theirs)[:5], sorted(theirs - ours)[:5])

    # 4. MXNet's export files through SymbolBlock.imports
    block = mx.gluon.SymbolBlock.imports(str(src / "export-symbol.json"), ["data"],
                                         str(src / "export-0000.params"))
    _outputs_close(block(x).asnumpy(), ref["out_infer:0"], "%s inference output (imports)" % name)
    by_name = block.collect_params()
    _check_training(name, block, lambda k: by_name[names[k]].grad().asnumpy(),
                    lambda k: by_name[names[k]].data().asnumpy(), ref, initial,
                    _GraphArbiter(exact), "imports", trainable)
