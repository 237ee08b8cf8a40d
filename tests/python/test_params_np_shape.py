"""nd.save/nd.load follow np_shape as MXNet 1.9.1's do: under np_shape the file is in the V3
(numpy-shape) layout and loads only under np_shape; a V2 file (saved without) does not load
under one thread's np_shape (it does under set_np_shape(2)); zero-size and 0-d arrays keep their
shapes."""
import struct

import numpy as np
import pytest

import symnet as mx

SHAPES = [(2, 0, 1), (0,), (0, 4), (3, 0, 0, 0), (2, 1), (0, 5, 0)]


def _save(path, np_shape, shapes):
    with mx.np_shape(np_shape):
        arrays = [mx.nd.array(np.random.RandomState(0).randint(0, 10, size=s)) for s in shapes]
        mx.nd.save(str(path), arrays)
    return arrays


def _magic(path):
    return struct.unpack_from("<I", open(path, "rb").read(), 24)[0]


def test_np_shape_decides_layout_and_what_loads(tmp_path):
    f = tmp_path / "a.params"
    arrays = _save(f, False, SHAPES)
    assert _magic(f) == 0xF993FAC9  # V2
    assert [a.shape for a in mx.nd.load(str(f))] == [a.shape for a in arrays]
    with mx.np_shape(True), pytest.raises(mx.MXNetError, match="was not saved in np shape semantics"):
        mx.nd.load(str(f))
    arrays = _save(f, True, SHAPES[:2] + [(), ()] + SHAPES[2:])
    assert _magic(f) == 0xF993FACA  # V3
    with pytest.raises(mx.MXNetError, match="was saved in np shape semantics"):
        mx.nd.load(str(f))
    with pytest.raises(mx.MXNetError, match="was saved in np shape semantics"):
        mx.nd.load_frombuffer(open(f, "rb").read())
    with mx.np_shape(True):
        loaded = mx.nd.load(str(f))
    for a, b in zip(arrays, loaded):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_global_np_shape_loads_both_layouts(tmp_path):
    f = tmp_path / "b.params"
    _save(f, False, [(2, 3)])
    prev = mx.util.set_np_shape(2)
    try:
        assert mx.nd.load(str(f))[0].shape == (2, 3)
    finally:
        mx.util.set_np_shape(prev)
