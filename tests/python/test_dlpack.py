"""Sharing memory without a copy (MXNet 1.9.1's DLPack functions): to_dlpack_for_read/write and
from_dlpack between NDArrays and with numpy (both directions), from_numpy(zero_copy=True), a
capsule consumed once only, memory kept alive by whoever holds it."""
import gc

import numpy as np
import pytest

import symnet as mx


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int8", "int32", "int64"])
def test_round_trip_shares_memory(dtype):
    a = mx.nd.array(np.arange(12).reshape(3, 4), dtype=dtype)
    for pack in (a.to_dlpack_for_read(), a.to_dlpack_for_write(), mx.nd.to_dlpack_for_read(a),
                 mx.nd.to_dlpack_for_write(a)):
        b = mx.nd.from_dlpack(pack)
        assert b.shape == (3, 4) and b.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())
    b[1, 2] = 99  # the same memory
    assert a.asnumpy()[1, 2] == 99
    del a
    gc.collect()
    assert b.asnumpy()[1, 2] == 99  # b keeps the memory alive


def test_capsule_is_consumed_once_and_unconsumed_ones_free_their_tensor():
    a = mx.nd.ones((2, 2))
    pack = a.to_dlpack_for_read()
    mx.nd.from_dlpack(pack)
    with pytest.raises(AssertionError, match="consumed only once"):
        mx.nd.from_dlpack(pack)
    for _ in range(3):
        a.to_dlpack_for_read()  # dropped unconsumed: its destructor runs the deleter
    with pytest.raises(TypeError, match="DLPack capsule"):
        mx.nd.from_dlpack([1, 2])


def test_numpy_interop_both_ways():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = mx.nd.from_dlpack(x.__dlpack__())
    x[0, 0] = 7  # numpy writes, the NDArray sees them
    assert a.asnumpy()[0, 0] == 7
    assert mx.nd.from_dlpack(x).asnumpy()[0, 0] == 7  # an object with __dlpack__ is taken too
    assert mx.nd.from_dlpack(np.array([True, False])).dtype == np.bool_
    assert mx.nd.from_dlpack(np.array(3, dtype=np.int64)).shape == ()
    b = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    n = np.from_dlpack(b)
    assert b.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(n, [[1.0, 2.0], [3.0, 4.0]])
    b[0, 1] = 5.0
    assert n[0, 1] == 5.0  # the same memory
    with pytest.raises(mx.MXNetError, match="C-contiguous"):
        mx.nd.from_dlpack(np.ones((3, 2)).T.__dlpack__())


def test_from_numpy_zero_copy_locks_the_numpy_array():
    for zero_copy in (False, True):
        for arr in (np.array([[1, 2], [3, 4], [5, 6]], dtype="float32"), np.array((1,)).reshape(()),
                    np.array(()).reshape((1, 0, 2))):
            got = mx.nd.from_numpy(arr.copy(), zero_copy=zero_copy)
            assert got.shape == arr.shape and got.dtype == arr.dtype
            np.testing.assert_array_equal(got.asnumpy(), arr)
    arr = np.array([[1, 2], [3, 4], [5, 6]], dtype="float32")
    shared = mx.nd.from_numpy(arr)
    with pytest.raises(ValueError):
        arr[2, 1] = 0  # read-only now, as in MXNet
    shared[2, 1] = 100
    assert arr[2, 1] == 100
    copied = np.ones(3)
    mx.nd.from_numpy(copied, zero_copy=False)[0] = 5
    assert copied.flags.writeable and copied[0] == 1
    with pytest.raises(ValueError, match="c-contiguous"):
        mx.nd.from_numpy(np.ones((3, 2)).T)
