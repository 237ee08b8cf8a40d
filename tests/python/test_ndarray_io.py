"""MXNet's .params format: round trips, byte-exact compatibility with files MXNet 1.9.1 wrote,
the older array layouts, damaged files, and checkpoints."""
import os
import struct

import numpy as np
import pytest

import symnet as mx

DATA = os.path.join(os.path.dirname(__file__), "data")


def mxnet_reference_arrays():
    """The arrays tests/python/data/mxnet191_dict.params holds (written by MXNet 1.9.1)."""
    return {
        "arg:w_f32": (np.arange(12, dtype=np.float32).reshape(3, 4) / 7).astype(np.float32),
        "arg:w_f64": np.arange(5, dtype=np.float64) * 1.5,
        "arg:w_f16": np.linspace(-2, 2, 6).reshape(2, 3).astype(np.float16),
        "aux:i32": np.arange(-3, 3).astype(np.int32),
        "aux:u8": np.arange(250, 256).astype(np.uint8),
        "aux:i8": np.arange(-4, 4).astype(np.int8),
        "aux:i64": (np.arange(4) * 10 ** 10).astype(np.int64),
        "aux:scalar_like": np.array([3.25], np.float32),
    }


def test_loads_mxnet_files_and_writes_them_byte_for_byte():
    path = os.path.join(DATA, "mxnet191_dict.params")
    loaded = mx.nd.load(path)
    ref = mxnet_reference_arrays()
    assert list(loaded) == list(ref)
    for k, v in ref.items():
        assert loaded[k].dtype == v.dtype, k
        np.testing.assert_array_equal(loaded[k].asnumpy(), v)
    out = path + ".symnet"
    try:
        mx.nd.save(out, {k: mx.nd.array(v, dtype=v.dtype) for k, v in ref.items()})
        assert open(out, "rb").read() == open(path, "rb").read()
    finally:
        os.remove(out)
    lst = mx.nd.load(os.path.join(DATA, "mxnet191_list.params"))
    assert isinstance(lst, list) and len(lst) == 2
    np.testing.assert_array_equal(lst[1].asnumpy(), np.arange(-3, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "uint8", "int8",
                                   "int32", "int64", "bool"])
def test_round_trip_is_byte_identical(tmp_path, dtype):
    a = mx.nd.array(np.random.RandomState(0).normal(size=(3, 5)) * 10, dtype=dtype)
    f1, f2 = str(tmp_path / "a.params"), str(tmp_path / "b.params")
    mx.nd.save(f1, {"x": a, "y": mx.nd.zeros((2,), dtype=dtype)})
    back = mx.nd.load(f1)
    assert back["x"].dtype == a.dtype
    np.testing.assert_array_equal(back["x"].asnumpy(), a.asnumpy())
    mx.nd.save(f2, back)
    assert open(f1, "rb").read() == open(f2, "rb").read()


def v2_array(arr, magic=0xF993FAC9, stype=0):
    body = struct.pack("<Ii", magic, stype) + struct.pack("<i", arr.ndim)
    body += struct.pack("<%dq" % arr.ndim, *arr.shape) + struct.pack("<iii", 1, 0, 0)
    return body + arr.astype("<f4").tobytes()


def file_of(*arrays, names=()):
    b = struct.pack("<QQQ", 0x112, 0, len(arrays)) + b"".join(arrays)
    b += struct.pack("<Q", len(names))
    for n in names:
        b += struct.pack("<Q", len(n)) + n.encode()
    return b


def test_older_layouts_load():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    v1 = struct.pack("<Ii", 0xF993FAC8, 2) + struct.pack("<2q", 2, 3) + struct.pack("<iii", 1, 0, 0) + x.tobytes()
    legacy = struct.pack("<I", 2) + struct.pack("<2I", 2, 3) + struct.pack("<iii", 1, 0, 0) + x.tobytes()
    arrays, names = mx._core.load_ndarrays_bytes(file_of(v1, legacy, names=("a", "b")))
    assert names == ["a", "b"]
    for h in arrays:
        np.testing.assert_array_equal(h.asnumpy(), x)


@pytest.mark.parametrize("damage,pattern", [
    (lambda b: b[:-3], "truncated"),
    (lambda b: b"\x00" * 8 + b[8:], "not an MXNet NDArray file"),
    (lambda b: b[:24] + struct.pack("<I", 0xDEADBEEF) + b[28:], "unknown array magic"),
    (lambda b: b[:28] + struct.pack("<i", 7) + b[32:], "sparse"),
    (lambda b: b[:32] + struct.pack("<i", 1000) + b[36:], "dimensions"),
    (lambda b: b[:36] + struct.pack("<q", 10 ** 15) + b[44:], "larger than the rest"),
    (lambda b: b[:36] + struct.pack("<q", -5) + b[44:], "negative dimension"),
    (lambda b: b[:60] + struct.pack("<i", 9) + b[64:], "unknown dtype flag"),
    (lambda b: b[:16] + struct.pack("<Q", 10 ** 12) + b[24:], "impossible"),
    (lambda b: b + b"junk", "unexpected bytes"),
])
def test_damaged_files_give_clear_errors(damage, pattern):
    good = file_of(v2_array(np.ones((2, 3), np.float32)), names=("w",))
    mx._core.load_ndarrays_bytes(good)  # the undamaged file loads
    with pytest.raises(mx.MXNetError, match=pattern):
        mx._core.load_ndarrays_bytes(damage(good))


def test_every_truncation_is_an_error_not_a_crash():
    good = open(os.path.join(DATA, "mxnet191_dict.params"), "rb").read()
    for n in range(len(good)):
        with pytest.raises(mx.MXNetError):
            mx._core.load_ndarrays_bytes(good[:n])


def test_checkpoint_round_trip(tmp_path):
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                               name="softmax")
    arg = {"fc_weight": mx.nd.array(np.ones((3, 4))), "fc_bias": mx.nd.array([1, 2, 3])}
    aux = {"bn_moving_mean": mx.nd.zeros((3,))}
    prefix = str(tmp_path / "model")
    mx.model.save_checkpoint(prefix, 7, net, arg, aux)
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0007.params")
    sym, arg2, aux2 = mx.model.load_checkpoint(prefix, 7)
    assert sym.tojson() == net.tojson()
    assert sorted(arg2) == ["fc_bias", "fc_weight"] and list(aux2) == ["bn_moving_mean"]
    np.testing.assert_array_equal(arg2["fc_bias"].asnumpy(), [1, 2, 3])
    raw = mx.nd.load(prefix + "-0007.params")
    assert sorted(raw) == ["arg:fc_bias", "arg:fc_weight", "aux:bn_moving_mean"]
