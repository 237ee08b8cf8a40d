"""Claims in docs/ that had no test of their own (issue 14). Each test names the sentence it
backs; the docs point back here.

- docs/amp.md, "Loss scaling and master weights" 3 and "The claims, measured": an overflow
  leaves float16 weights, float32 master weights and optimizer state bit-identical, and
  `clip_gradient` sees unscaled gradients.
- docs/training.md, "C++": a run started in C++ resumes in Python and the other way round.
- docs/mxnet_compat.md, "Files": MXNet 1.9.1 loads symnet's .params, checkpoints and .rec files.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import symnet as mx
from parity_checks import REPO, manifest as _manifest
from record_files import random_images_rec


# ---- docs/amp.md: an overflow skips the whole update, master weights included ----------------
def test_overflow_keeps_float16_weights_master_weights_and_momentum_bit_identical():
    """docs/amp.md, Loss scaling 3: "on overflow the whole update is skipped — weights, float32
    master weights and optimizer states stay bit-identical — and the scale halves", with float16
    parameters (convert_model(..., cast_optional_params=True)) trained by a Module with
    multi_precision, so that the optimizer keeps float32 master weights and momentum."""
    net = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=32, name="fc0"), act_type="relu")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10, name="out"), name="softmax")
    rng = np.random.RandomState(0)
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(16, 20))[0]))
    args = {k: mx.nd.array(rng.normal(0, 0.3, s)) for k, s in shapes.items() if k not in ("data", "softmax_label")}
    sym, args16, _ = mx.amp.convert_model(net, args, {}, "float16", cast_optional_params=True)
    mod = mx.mod.Module(sym)
    mod.bind([("data", (16, 20))], [("softmax_label", (16,))])
    mod.init_params(arg_params=args16)
    # 2**10, not the default 2**16: the clean steps below must not overflow by themselves
    mx.amp.init_trainer(mod, mx.amp.LossScaler(init_scale=2.0 ** 10))
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4,
                                                          "multi_precision": True})
    x = rng.normal(size=(16, 20)).astype(np.float32)
    y = rng.randint(0, 10, 16).astype(np.float32)

    def step(data):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(y)]))
        return mod.update()

    def snapshot():
        """Bytes of every float16 weight, and of each optimizer state part (momentum, master)."""
        weights = {n: mod._exec.arg_dict[n].asnumpy().tobytes() for n in mod._param_names}
        states = {i: [p.asnumpy().tobytes() for p in s] for i, s in mod._states.items()}
        return weights, states, (mod._optimizer.num_update, dict(mod._optimizer._index_update_count))

    assert [step(x) for _ in range(3)] == [True] * 3  # momentum and master weights are non-trivial now
    assert all(mod._exec.arg_dict[n].dtype == np.float16 for n in mod._param_names)
    assert all(isinstance(s, tuple) and [p.dtype for p in s] == [np.float32] * 2 for s in mod._states.values())
    before, scale = snapshot(), mod.loss_scale
    bad = x.copy()
    bad[0, 0] = 1e5  # beyond float16's range: inf in the 16-bit FullyConnected, inf/nan gradients
    assert step(bad) is False
    assert mod.loss_scale == scale / 2
    assert snapshot() == before
    # the skip is not vacuous: a clean step changes every one of those arrays
    assert step(x)
    weights, states, _ = snapshot()
    assert all(weights[n] != before[0][n] for n in weights)
    assert all(a != b for i in states for a, b in zip(states[i], before[1][i]))


# ---- docs/amp.md, mxnet_compat.md: clip_gradient acts on the unscaled gradient ----------------
def test_clip_gradient_sees_unscaled_gradients_under_loss_scaling():
    """docs/amp.md, Loss scaling 3: "the optimizer runs with rescale_grad = 1 / (batch_size * scale),
    so clip_gradient sees unscaled gradients" (and docs/mxnet_compat.md: "clip_gradient applies
    to the unscaled gradient when loss scaling is on"). Training with a loss scale of 2**10 and
    clipping gives exactly the weights of training without loss scaling and the same clipping,
    and not those of clipping the scaled gradient."""
    net = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=16, name="fc0"), act_type="relu")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=4, name="out"), name="softmax")
    rng = np.random.RandomState(0)
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(32, 20))[0]))
    init = {k: rng.normal(0, 0.5, s) for k, s in shapes.items() if k not in ("data", "softmax_label")}
    x = rng.normal(size=(32, 20)).astype(np.float32)
    y = rng.randint(0, 4, 32).astype(np.float32)
    scale, clip = 2.0 ** 10, 0.01

    def train(loss_scale, clip_gradient, steps=5):
        # float32 graph: scaling by a power of two is exact there, so loss scaling itself cannot
        # change a bit, and any difference comes from where the clip acts
        mod = mx.mod.Module(net)
        mod.bind([("data", x.shape)], [("softmax_label", y.shape)])
        mod.init_params(arg_params={k: mx.nd.array(v) for k, v in init.items()})
        if loss_scale:
            mx.amp.init_trainer(mod, mx.amp.LossScaler(init_scale=loss_scale))
        params = {"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-4}
        if clip_gradient is not None:
            params["clip_gradient"] = clip_gradient
        mod.init_optimizer(optimizer="sgd", optimizer_params=params)
        grads = None
        for _ in range(steps):
            mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
            grads = grads or {n: mod._exec.grad_dict[n].asnumpy() for n in mod._param_names}
            assert mod.update()
        if loss_scale:
            assert mod.loss_scale == loss_scale  # no overflow: every step was applied at this scale
        return {n: mod._exec.arg_dict[n].asnumpy() for n in mod._param_names}, grads

    scaled, scaled_grads = train(scale, clip)
    plain, grads = train(None, clip)
    unclipped, _ = train(None, None)
    # what clipping the scaled gradient would do: clip(scale*g/batch, c)/scale = clip(g/batch, c/scale)
    clipped_scaled, _ = train(None, clip / scale)
    # the clip bites: the batch-averaged gradient is well above it, and clipping changes the result
    assert max(np.abs(g).max() for g in grads.values()) / 32 > 10 * clip
    assert np.abs(scaled_grads["out_weight"]).max() == scale * np.abs(grads["out_weight"]).max()
    assert any(not np.array_equal(plain[n], unclipped[n]) for n in plain)
    for n in plain:
        np.testing.assert_array_equal(scaled[n], plain[n], err_msg=n)
    assert max(np.abs(scaled[n] - clipped_scaled[n]).max() for n in plain) > 1e-2


# ---- docs/training.md, C++: checkpoints cross between the Python Module and the C++ Trainer ---
PY_TRAIN = os.path.join(REPO, "example", "resnet50", "train.py")
CPP_TRAIN = os.path.join(REPO, "build", "pip", "example", "train_resnet50")


@pytest.mark.parametrize("first", ["python", "c++"])
def test_checkpoint_resumes_across_python_and_cpp(tmp_path, first):
    """docs/training.md, C++: SaveCheckpoint/LoadCheckpoint "write and read the Python Module's
    files ... so a run started in C++ resumes in Python and the other way round", with num_update
    and the loss scaler carried through (README: train.py and train_resnet50 "either resumes the
    other's checkpoints"). One side trains 2 epochs; the other resumes its epoch-1 checkpoint for
    epoch 2. Both front ends run the same ops, iterator and scaler, so the resumed run's epoch-2
    .params and .states must equal the one-sided run's byte for byte. With float16 AMP the first
    step of each epoch overflows here, so the loss scale moves on both sides of the hand-over."""
    pytest.importorskip("PIL")
    pytest.importorskip("matplotlib")  # train.py draws its curves
    if not os.access(CPP_TRAIN, os.X_OK):
        pytest.skip("%s is not built (it needs Boost.Program_options)" % CPP_TRAIN)
    rec = random_images_rec(tmp_path, 16)
    # ResNet-18, the smallest the examples build, on 24x24 images: 2 batches of 8 per epoch
    common = ["--data-train", rec, "--image-shape", "3,24,24", "--num-classes", "4", "--num-layers", "18",
              "--batch-size", "8", "--amp", "float16", "--num-epochs", "2", "--work-dir", str(tmp_path)]

    def run(side, run_dir, resume=False):
        os.makedirs(run_dir, exist_ok=True)
        cmd = [sys.executable, PY_TRAIN] if side == "python" else [CPP_TRAIN]
        cmd += common + ["--model-prefix", os.path.join(run_dir, "r"), "--log", os.path.join(run_dir, "log.jsonl")]
        if side == "python":
            cmd += ["--plot", os.path.join(run_dir, "curves.png")]
        out = subprocess.run(cmd + (["--resume"] if resume else []), capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout + out.stderr

    second = "c++" if first == "python" else "python"
    one_sided, handed_over = str(tmp_path / "one_sided"), str(tmp_path / "handed_over")
    run(first, one_sided)
    os.makedirs(handed_over)
    for f in ("r-symbol.json", "r-0001.params", "r-0001.states"):
        shutil.copy(os.path.join(one_sided, f), handed_over)
    assert "resuming from" in run(second, handed_over, resume=True)
    for f in ("r-0002.params", "r-0002.states"):
        with open(os.path.join(one_sided, f), "rb") as a, open(os.path.join(handed_over, f), "rb") as b:
            assert a.read() == b.read(), "%s after %s -> %s differs from %s alone" % (f, first, second, first)
    # the hand-over mattered: the scale handed over is not a fresh scaler's, and the resuming side
    # updated and overflowed again from there
    st = [mx._core.load_optimizer_states(os.path.join(handed_over, "r-%04d.states" % e)) for e in (1, 2)]
    scaler = [json.loads(s["loss_scaler"].to_json()) for s in st]
    assert scaler[0]["loss_scale"] < 2.0 ** 16 and scaler[1]["num_overflows"] > scaler[0]["num_overflows"]
    assert st[1]["num_update"] > st[0]["num_update"] > 0


# ---- docs/mxnet_compat.md: MXNet 1.9.1 loads symnet's files ------------------------------------
def _mxnet_python():
    """MXNet 1.9.1's python (build/mxnet-venv, made by tools/run_tests.sh). The parity suite's rule:
    where MXNet could not be installed the test is skipped with the reason, and with
    SYMNET_REQUIRE_MXNET_REFS=1 (CI) it fails instead."""
    _manifest()  # skips or fails exactly as the parity tests do when MXNet was unavailable
    python = os.path.join(REPO, "build", "mxnet-venv", "bin", "python")
    if not os.access(python, os.X_OK):
        reason = "no MXNet 1.9.1 venv at %s (tools/run_tests.sh makes it)" % python
        if os.environ.get("SYMNET_REQUIRE_MXNET_REFS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return python


def _run_mxnet(script, *args):
    out = subprocess.run([_mxnet_python(), "-c", script] + [str(a) for a in args], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# runs under MXNet 1.9.1; arrays come back as dtype, shape and raw bytes (hex), so that the
# comparison is bit for bit. MXNet's unpack_img needs cv2, which the venv lacks; it is unpack
# plus an OpenCV decode, and mx.image.imdecode is MXNet's own OpenCV decode.
MXNET_READER = r"""
import json, sys
import numpy as np
import mxnet as mx
d = sys.argv[1]

def arr(a):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "hex": np.ascontiguousarray(a).tobytes().hex()}

out = {"params": {k: arr(v) for k, v in mx.nd.load(d + "/dtypes.params").items()}}
with mx.util.np_shape(True):  # MXNet keeps 0-d arrays only in its numpy-shape mode
    out["scalar"] = {k: arr(v) for k, v in mx.nd.load(d + "/scalar.params").items()}
sym, args, auxs = mx.model.load_checkpoint(d + "/net", 3)
data = np.load(d + "/input.npy")
mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
mod.bind(data_shapes=[("data", data.shape)], for_training=False)
mod.set_params(args, auxs)
mod.forward(mx.io.DataBatch([mx.nd.array(data)]), is_train=False)
out["checkpoint"] = {"args": {k: arr(v) for k, v in args.items()}, "auxs": {k: arr(v) for k, v in auxs.items()},
                     "arguments": sym.list_arguments(), "output": arr(mod.get_outputs()[0])}
recs = []
rio = mx.recordio.MXIndexedRecordIO(d + "/misc.idx", d + "/misc.rec", "r")
for key in rio.keys:
    h, payload = mx.recordio.unpack(rio.read_idx(key))
    recs.append({"key": key, "flag": h.flag, "label": np.atleast_1d(h.label).astype(np.float32).tolist(), "id": h.id,
                 "id2": h.id2, "payload": payload.hex()})
out["records"] = recs
out["png"] = arr(mx.image.imdecode(mx.recordio.unpack(rio.read_idx(3))[1], to_rgb=False))
images = mx.recordio.MXIndexedRecordIO(d + "/images.idx", d + "/images.rec", "r")
out["decoded"] = [arr(mx.image.imdecode(mx.recordio.unpack(images.read_idx(k))[1], to_rgb=False))
                  for k in images.keys]
it = mx.io.ImageRecordIter(path_imgrec=d + "/images.rec", data_shape=(3, 16, 16), batch_size=4)
batch = next(iter(it))
out["iter"] = {"data": arr(batch.data[0]), "label": arr(batch.label[0])}
print(json.dumps(out))
"""


def _np(rec):
    """An array MXNET_READER sent back (MXNet shows bfloat16 as a structured uint16 dtype)."""
    dtype = np.uint16 if "bfloat16" in rec["dtype"] else np.dtype(rec["dtype"])
    return np.frombuffer(bytes.fromhex(rec["hex"]), dtype=dtype).reshape(rec["shape"])


def _ours(a):
    """symnet's array as numpy, bfloat16 as its uint16 bit patterns (as _np gives MXNet's)."""
    if a.dtype == mx.base.bfloat16:  # read out as float32, exactly: a bfloat16 is its top 16 bits
        return (a.asnumpy().view(np.uint32) >> 16).astype(np.uint16)
    return a.asnumpy()


def test_mxnet_loads_symnet_params_checkpoints_and_records(tmp_path):
    """docs/mxnet_compat.md, Files: ".params ... MXNet 1.9.1 loads symnet's files" (every dtype,
    float16 and bfloat16 included; arg:/aux: names as save_checkpoint writes them; a 0-d array,
    which MXNet reads in its numpy-shape mode only), a checkpoint (-symbol.json + .params) loads
    with mx.model.load_checkpoint and runs in MXNet's Module with symnet's output, and RecordIO
    ".rec, .idx: MXNet's framing ... and image header", "MXNet's ImageRecordIter reads symnet's"
    (also docs/training.md). MXNet's reads are compared with what symnet wrote, bit for bit;
    the forward output (two frameworks' kernels) to 1e-5."""
    pytest.importorskip("PIL")
    _mxnet_python()  # before any work: skip (or fail in CI) where MXNet is unavailable
    d = tmp_path
    rng = np.random.RandomState(0)
    params = {"arg:fc_weight": mx.nd.array(rng.normal(size=(3, 4)), dtype="float16"),
              "arg:fc_bias": mx.nd.array(rng.normal(size=3)),
              "aux:bn_moving_var": mx.nd.array(rng.rand(5), dtype="float64"),
              "bf16": mx.nd.array(rng.normal(size=(2, 3)), dtype="bfloat16"),
              "u8": mx.nd.array(np.arange(250, 256), dtype="uint8"),
              "i8": mx.nd.array(np.arange(-3, 3), dtype="int8"),
              "i32": mx.nd.array([-2 ** 31, 7, 2 ** 31 - 1], dtype="int32"),
              "i64": mx.nd.array([-2 ** 62, 2 ** 62], dtype="int64"),
              "empty": mx.nd.array(np.zeros((0, 3), np.float32))}
    mx.nd.save(str(d / "dtypes.params"), params)
    mx.nd.save(str(d / "scalar.params"), {"step": mx.nd.array(np.float32(0.625))})

    # a small network with a BatchNorm (aux states) trained for a few steps, saved by the Module
    net = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=4, name="conv")
    net = mx.sym.Activation(mx.sym.BatchNorm(net, fix_gamma=False, name="bn"), act_type="relu")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.flatten(net), num_hidden=3, name="fc"), name="softmax")
    x = rng.normal(size=(4, 2, 6, 6)).astype(np.float32)
    mod = mx.mod.Module(net)
    mod.bind([("data", x.shape)], [("softmax_label", (4,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for _ in range(3):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array([0, 1, 2, 1])]))
        mod.update()
    mod.save_checkpoint(str(d / "net"), 3, save_optimizer_states=True)
    args, auxs = mod.get_params()
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    ours_out = mod.get_outputs()[0].asnumpy()
    np.save(str(d / "input.npy"), x)

    # records: a plain payload, a multi-label header, a payload holding RecordIO's magic (which the
    # writer must split with continuation flags), a lossless PNG image; and JPEG images
    magic = np.uint32(0xced7230a).tobytes()
    misc = [(mx.recordio.IRHeader(0, 2.5, 7, 0), b"plain payload"),
            (mx.recordio.IRHeader(0, [1.0, -2.0, 3.5], 8, 9), b"three labels"),
            (mx.recordio.IRHeader(0, 1.0, 9, 0), b"a" + magic + b"b" * 5 + magic + magic + b"c")]
    png, png_header = rng.randint(0, 256, (5, 7, 3)).astype(np.uint8), mx.recordio.IRHeader(0, 4.0, 10, 0)
    with mx.recordio.MXIndexedRecordIO(str(d / "misc.idx"), str(d / "misc.rec"), "w") as w:
        for i, (h, payload) in enumerate(misc):
            w.write_idx(i, mx.recordio.pack(h, payload))
        w.write_idx(3, mx.recordio.pack_img(png_header, png, img_fmt=".png"))
    images = [rng.randint(0, 256, (16, 16, 3)).astype(np.uint8) for _ in range(4)]
    with mx.recordio.MXIndexedRecordIO(str(d / "images.idx"), str(d / "images.rec"), "w") as w:
        for i, img in enumerate(images):
            w.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i), i, 0), img, quality=90))

    theirs = _run_mxnet(MXNET_READER, d)

    assert sorted(theirs["params"]) == sorted(params)
    for k, v in params.items():
        np.testing.assert_array_equal(_np(theirs["params"][k]), _ours(v), err_msg=k)
        assert _np(theirs["params"][k]).dtype == _ours(v).dtype, k
    assert theirs["scalar"]["step"]["shape"] == [] and _np(theirs["scalar"]["step"]) == np.float32(0.625)

    ck = theirs["checkpoint"]
    assert ck["arguments"] == net.list_arguments()
    assert sorted(ck["args"]) == sorted(args)
    assert sorted(ck["auxs"]) == sorted(auxs) == ["bn_moving_mean", "bn_moving_var"]
    for ours, their in ((args, ck["args"]), (auxs, ck["auxs"])):
        for k in ours:
            np.testing.assert_array_equal(_np(their[k]), ours[k].asnumpy(), err_msg=k)
    np.testing.assert_allclose(_np(ck["output"]), ours_out, rtol=1e-5, atol=1e-6)

    # every record as written: header fields, labels and payload bytes
    assert [r["key"] for r in theirs["records"]] == [0, 1, 2, 3]
    assert [r["flag"] for r in theirs["records"]] == [0, 3, 0, 0]  # flag: the number of labels
    for r, h in zip(theirs["records"], [h for h, _ in misc] + [png_header]):
        assert (r["id"], r["id2"]) == (h.id, h.id2)
        assert r["label"] == list(np.atleast_1d(h.label))
    assert [bytes.fromhex(r["payload"]) for r in theirs["records"][:3]] == [p for _, p in misc]
    # a lossless image decodes to the very pixels packed (BGR, as unpack_img returns them)
    np.testing.assert_array_equal(_np(theirs["png"]), png)
    # JPEG: MXNet's OpenCV decodes symnet's records to the pixels symnet's decoder gives
    imgs = mx.recordio.MXIndexedRecordIO(str(d / "images.idx"), str(d / "images.rec"), "r")
    for k, dec in enumerate(theirs["decoded"]):
        np.testing.assert_array_equal(_np(dec), mx.recordio.unpack_img(imgs.read_idx(k))[1], err_msg="image %d" % k)
    ours_it = next(iter(mx.io.ImageRecordIter(path_imgrec=str(d / "images.rec"), data_shape=(3, 16, 16),
                                              batch_size=4)))
    np.testing.assert_array_equal(_np(theirs["iter"]["label"]), [0, 1, 2, 3])
    np.testing.assert_array_equal(_np(theirs["iter"]["data"]), ours_it.data[0].asnumpy())


MXNET_LOAD_NP_SHAPE = r"""
import json, sys
import mxnet as mx
with mx.util.np_shape(True):  # the only mode in which MXNet keeps a 0-d array
    print(json.dumps({k: v.asnumpy().tolist() for k, v in mx.nd.load(sys.argv[1]).items()}))
"""


def test_mxnet_loads_a_params_file_mixing_a_0d_array_and_other_arrays(tmp_path):
    """docs/mxnet_compat.md, Files: "MXNet 1.9.1 loads symnet's files", and docs/errors.md: a 0-d
    array "is written in MXNet's V3 (numpy-shape) layout ... MXNet 1.x loads such a file in numpy
    mode only", for a file holding a 0-d array next to ordinary ones (a step count beside the
    weights). symnet used to write each array's own layout (V3 for the 0-d array, V2 for the
    others), which MXNet 1.9.1 loads in neither mode; now the whole file is V3, as MXNet writes it."""
    path = tmp_path / "mixed.params"
    mx.nd.save(str(path), {"step": mx.nd.array(np.float32(0.625)), "w": mx.nd.array([[1.5, -2.0]])})
    assert _run_mxnet(MXNET_LOAD_NP_SHAPE, path) == {"step": 0.625, "w": [[1.5, -2.0]]}
