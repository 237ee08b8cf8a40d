"""Writes the seed corpus of the fuzz targets: real files made by symnet's own writers (and the
MXNet 1.9.1 files of tests/python/data), small enough to commit. Run it after a format change:

    python3 tests/fuzz/make_seeds.py            # rewrites tests/fuzz/corpus/*/seed-*

Regression files of fixed findings (corpus/*/regress-*) are kept as they are.
"""
import glob
import io
import os
import shutil
import sys
import tempfile

import numpy as np

import symnet as mx
from symnet import recordio

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "python", "data")
CORPUS = os.path.join(HERE, "corpus")


def _put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(data)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _convnet():
    data = mx.sym.var("data", shape=(2, 3, 6, 6))
    label = mx.sym.var("softmax_label", shape=(2,))
    c = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv")
    b = mx.sym.BatchNorm(c, name="bn")
    r = mx.sym.Activation(b, act_type="relu")
    p = mx.sym.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type="max")
    f = mx.sym.FullyConnected(mx.sym.Flatten(p), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(f, label, name="softmax")


def _small_nets():
    """A few graphs of the kinds users load: a conv net, an MLP, a residual block, AMP-cast."""
    yield "convnet", _convnet()
    x = mx.sym.var("data", shape=(4, 5))
    h = mx.sym.FullyConnected(x, num_hidden=8, name="fc1")
    h = mx.sym.LeakyReLU(h, act_type="leaky", slope=0.1)
    h = mx.sym.Dropout(h, p=0.5)
    h = mx.sym.FullyConnected(h, num_hidden=2, name="fc2")
    yield "mlp", mx.sym.LinearRegressionOutput(h, mx.sym.var("label", shape=(4, 2)))
    y = mx.sym.var("data", shape=(1, 4, 4, 4))
    z = mx.sym.Convolution(y, num_filter=4, kernel=(1, 1), no_bias=True, name="c1")
    z = mx.sym.elemwise_add(z, y)
    z = mx.sym.Pooling(z, global_pool=True, pool_type="avg", kernel=(1, 1))
    yield "residual", mx.sym.LinearRegressionOutput(mx.sym.Flatten(z), mx.sym.var("label", shape=(1, 4)))
    yield "amp_bf16", mx.amp.convert_symbol(_convnet(), target_dtype="bfloat16")


def symbol_seeds():
    for name, sym in _small_nets():
        _put("symbol_json", name + ".json", sym.tojson().encode())
    for f in ("mxnet08_legacy-symbol.json", "mxnet1x_mlp-symbol.json"):
        _put("symbol_json", f, _read(os.path.join(DATA, f)))


def params_seeds(tmp):
    rng = np.random.default_rng(0)
    arrays = {
        "arg:fc_weight": mx.nd.array(rng.standard_normal((4, 3))),
        "arg:fc_bias": mx.nd.zeros((4,)),
        "aux:bn_moving_var": mx.nd.ones((2,), dtype="float16"),
        "arg:emb": mx.nd.array(rng.integers(0, 9, (2, 2)), dtype="int32"),
        "arg:empty": mx.nd.zeros((0, 3)),
    }
    for name, kw in (("dict", arrays), ("list", list(arrays.values())[:2])):
        path = os.path.join(tmp, name + ".params")
        mx.nd.save(path, kw)
        _put("params", name + ".params", _read(path))
    path = os.path.join(tmp, "bf16.params")
    mx.nd.save(path, {"w": mx.nd.array(rng.standard_normal((3, 2))).astype("bfloat16")})
    _put("params", "bf16.params", _read(path))
    for f in ("mxnet191_dict.params", "mxnet191_list.params"):
        _put("params", f, _read(os.path.join(DATA, f)))


def states_seeds(tmp):
    """.states of Module runs: SGD with momentum, Adam, and AMP (a loss scaler in the meta)."""
    x = mx.sym.var("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=2, name="fc"), name="softmax")
    it = mx.io.NDArrayIter(np.ones((4, 3), "float32"), np.array([0, 1, 0, 1], "float32"), batch_size=4)
    for name, opt, kw in (("sgd_momentum", "sgd", {"momentum": 0.9}), ("adam", "adam", {})):
        mod = mx.mod.Module(net)
        mod.bind(it.provide_data, it.provide_label)
        mod.init_params()
        mod.init_optimizer(optimizer=opt, optimizer_params=kw)
        it.reset()
        batch = next(iter(it))
        mod.forward_backward(batch)
        mod.update()
        path = os.path.join(tmp, name + ".states")
        mod.save_optimizer_states(path)
        _put("states", name + ".states", _read(path))
    mx.amp.init("bfloat16")
    try:
        mod = mx.mod.Module(net)
        mod.bind(it.provide_data, it.provide_label)
        mod.init_params()
        mod.init_optimizer(optimizer="sgd")
        mx.amp.init_trainer(mod, mx.amp.LossScaler(init_scale=2.0 ** 10, scale_window=7))
        it.reset()
        mod.forward_backward(next(iter(it)))
        mod.update()
        path = os.path.join(tmp, "amp.states")
        mod.save_optimizer_states(path)
        _put("states", "amp.states", _read(path))
    finally:
        mx.amp.shutdown()


def _jpeg(img, **kw):
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", **kw)
    return buf.getvalue()


def recordio_seeds(tmp):
    magic = (0xCED7230A).to_bytes(4, "little")
    records = [b"", b"a", b"abcd" * 3, magic, b"xx" + magic + b"yy" + magic + magic, b"q" * 37]
    path, idx = os.path.join(tmp, "r.rec"), os.path.join(tmp, "r.idx")
    with recordio.MXIndexedRecordIO(idx, path, "w") as w:
        for i, r in enumerate(records):
            w.write_idx(i, r)
    _put("recordio", "records.rec", _read(path))
    _put("index_file", "records.idx", _read(idx))
    _put("recordio", "mxnet191.rec", _read(os.path.join(DATA, "mxnet191.rec")))
    _put("index_file", "mxnet191.idx", _read(os.path.join(DATA, "mxnet191.idx")))


def im2rec_list_seeds():
    """.lst files as tools/im2rec.py --list writes them: index, label(s), path."""
    _put("im2rec_list", "single_label.lst", b"0\t0.000000\tclass_0/img0.jpg\n1\t1.000000\tclass_1/a b.png\n")
    _put("im2rec_list", "multi_label.lst", b"5\t1.0\t0.5\t2\tx/y.jpeg\n6\t-3e2\t0\t1\tz.jpg\n")


def image_record_seeds():
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 255, (12, 10, 3), dtype=np.uint8)
    grey = rng.integers(0, 255, (9, 7), dtype=np.uint8)
    h = recordio.IRHeader(0, 3.0, 7, 0)
    _put("image_record", "rgb.rec", recordio.pack(h, _jpeg(rgb, quality=90)))
    _put("image_record", "grey.rec", recordio.pack(h, _jpeg(grey)))
    _put("image_record", "progressive.rec", recordio.pack(h, _jpeg(rgb, progressive=True, quality=60)))
    multi = recordio.IRHeader(3, [1.0, 2.0, 0.5], 8, 1)
    _put("image_record", "multilabel.rec", recordio.pack(multi, _jpeg(rgb[:5, :9])))
    _put("image_record", "wide.rec", recordio.pack(h, _jpeg(rng.integers(0, 255, (1, 64, 3), dtype=np.uint8))))


def main():
    for f in glob.glob(os.path.join(CORPUS, "*", "seed-*")):
        os.remove(f)
    tmp = tempfile.mkdtemp()
    try:
        symbol_seeds()
        params_seeds(tmp)
        states_seeds(tmp)
        recordio_seeds(tmp)
        image_record_seeds()
        im2rec_list_seeds()
    finally:
        shutil.rmtree(tmp)
    for folder in sorted(glob.glob(os.path.join(CORPUS, "*"))):
        files = os.listdir(folder)
        print("%-14s %2d files, %6d bytes" % (os.path.basename(folder), len(files),
                                            sum(os.path.getsize(os.path.join(folder, f)) for f in files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
