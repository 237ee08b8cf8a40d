"""MXNet 1.9.1's NDArray / Symbol / Executor Python API details (issue 38): Symbol composition,
pickling, bool/abs, partial type and shape inference in both shape modes, NumPy shape semantics,
nd.contrib.isnan/isinf/isfinite, contiguous basic indexing as views, Executor.reshape."""
import copy
import itertools
import json
import pickle
import threading

import numpy as np
import pytest

import symnet as mx
from symnet.base import NotImplementedForSymbol


def _mlp_tail():
    net = mx.sym.FullyConnected(name="fc3", num_hidden=4)
    return mx.sym.Activation(data=net, act_type="relu", name="act")


# ---- Symbol -------------------------------------------------------------------------------------
def test_bool_of_a_symbol_raises_and_abs_builds_an_abs_node():
    x = mx.sym.var("x")
    with pytest.raises(NotImplementedForSymbol, match="bool"):
        bool(x)
    with pytest.raises(NotImplementedForSymbol):
        if x:
            pass
    out = abs(x).eval(x=mx.nd.array([-1.5, 2.0, -0.25]))[0]
    np.testing.assert_array_equal(out.asnumpy(), [1.5, 2.0, 0.25])


def test_call_composes_by_keyword_and_names_the_head():
    data = mx.sym.var("data")
    net1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=3)
    tail = _mlp_tail()
    composed = tail(fc3_data=net1, name="composed")
    assert composed.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc3_weight", "fc3_bias"]
    assert composed.list_outputs() == ["composed_output"]
    assert tail.list_arguments() == ["fc3_data", "fc3_weight", "fc3_bias"]  # a copy was composed
    assert len(mx.sym.Group([composed, net1])) == 2
    # the composed graph computes what building it directly computes
    direct = mx.sym.Activation(mx.sym.FullyConnected(net1, name="fc3", num_hidden=4), act_type="relu")
    rng = np.random.RandomState(0)
    feed = {n: mx.nd.array(rng.uniform(-1, 1, s)) for n, s in
            zip(composed.list_arguments(), composed.infer_shape(data=(2, 5))[0])}
    np.testing.assert_allclose(composed.eval(**feed)[0].asnumpy(), direct.eval(**feed)[0].asnumpy())
    # a multi-output input (SliceChannel) feeds the output it names
    parts = mx.sym.SliceChannel(data, num_outputs=2, axis=1, name="sl")
    neg = mx.sym.negative(mx.sym.var("v"), name="neg")(v=parts[1])
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(neg.eval(data=x)[0].asnumpy(), [[-2.0], [-4.0]])


def test_call_refuses_what_mxnet_refuses():
    tail, other = _mlp_tail(), mx.sym.var("d")
    with pytest.raises(mx.MXNetError, match="foo"):
        tail(foo=other)
    with pytest.raises(mx.MXNetError, match="kwargs"):
        tail(other)
    with pytest.raises(mx.MXNetError, match="single"):
        tail(fc3_data=mx.sym.Group([other, other]))
    with pytest.raises(TypeError, match="Symbol"):
        tail(fc3_data=3)


def test_pickle_round_trips_through_json():
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                               name="sm")
    back = pickle.loads(pickle.dumps([net, _mlp_tail()]))
    assert back[0].tojson() == net.tojson() and back[1].tojson() == _mlp_tail().tojson()
    assert back[0].infer_shape(data=(2, 7))[1] == [(2, 3)]
    assert copy.deepcopy(back[0]).tojson() == net.tojson()


def test_infer_type_partial_leaves_unknown_as_none():
    data = mx.sym.var("data")
    mlp = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Cast(data, dtype="float32"), num_hidden=8,
                                                     name="fc"), name="sm")
    arg, out, aux = mlp.infer_type_partial()
    assert arg == [None, np.float32, np.float32, np.float32] and out == [np.float32] and aux == []
    assert mlp.infer_type() == (None, None, None)
    assert mlp.infer_type(data=np.float16)[0][0] == np.float16


def test_infer_shape_partial_writes_unknowns_as_the_shape_mode_says():
    fc = mx.sym.FullyConnected(mx.sym.sin(mx.sym.var("x")), num_hidden=3, name="fc")
    # legacy shapes: an unknown shape is (), an unknown dim 0
    arg, out, _ = fc.infer_shape_partial()
    assert arg == [(), (), (3,)] and out == [()]
    data = mx.sym.var("data", shape=(1, 0, 0, 0))
    conv = mx.sym.Convolution(data, num_filter=2, kernel=(3, 3), no_bias=True, name="c")
    assert conv.infer_shape_partial()[0][0] == (1, 0, 0, 0)
    # an explicit 0 is an unknown dim, as in MXNet 1.x (written back as 0)
    assert fc.infer_shape_partial(x=(0, 5))[1] == [(0, 3)]
    with mx.np_shape(True):
        arg, out, _ = fc.infer_shape_partial()
        assert arg == [None, None, (3,)] and out == [None]
        assert conv.infer_shape_partial()[0][0] == (1, -1, -1, -1)
        # -1 is the unknown dim given, 0 an empty one
        emb = mx.sym.Embedding(mx.sym.var("i"), input_dim=10, output_dim=4, name="e")
        assert emb.infer_shape_partial(i=(-1, 5))[1] == [(-1, 5, 4)]
        assert emb.infer_shape_partial(i=(0, 5))[1] == [(0, 5, 4)]
        with pytest.warns(UserWarning, match="x"):
            assert fc.infer_shape(x=(-1, 5)) == (None, None, None)
        assert fc.infer_shape(x=(2, 5))[1] == [(2, 3)]
    assert fc.infer_shape_partial()[1] == [()]


def test_np_shape_is_a_thread_local_flag_that_marks_saved_graphs():
    assert not mx.is_np_shape()
    with mx.np_shape(True):
        assert mx.is_np_shape()
        seen = []
        worker = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
        worker.start()
        worker.join()
        assert seen == [False]
        text = mx.sym.var("w", shape=(3, 0)).tojson()
        assert json.loads(text)["attrs"]["is_np_shape"] == ["int", 1]
        assert mx.sym.load_json(text).tojson() == text
        assert mx.nd.zeros(()).shape == () and mx.nd.zeros((0, 3)).shape == (0, 3)
    assert not mx.is_np_shape()
    assert "is_np_shape" not in json.loads(mx.sym.var("w").tojson())["attrs"]
    # 2 (MXNet's GlobalOn) turns them on in every thread; 0 turns that off again
    try:
        assert mx.set_np_shape(2) is False
        seen = []
        worker = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
        worker.start()
        worker.join()
        assert seen == [True] and mx.is_np_shape()
    finally:
        assert mx.set_np_shape(0) is True
    assert not mx.is_np_shape()
    # mx.np's arrays are still missing: turning array semantics on raises
    with pytest.raises(NotImplementedError, match="mx.np"):
        with mx.np_array(True):
            pass


# ---- NDArray ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_contrib_isnan_isinf_isfinite_match_numpy(dtype):
    values = np.array([np.inf, -np.inf, np.nan, 5.0, 0.0, -2.5], dtype=dtype).reshape(2, 3)
    x = mx.nd.array(values, dtype=dtype)
    for name in ("isnan", "isinf", "isfinite"):
        out = getattr(mx.nd.contrib, name)(x)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out.asnumpy(), getattr(np, name)(values).astype(dtype))


def test_abs_of_an_ndarray():
    np.testing.assert_array_equal(abs(mx.nd.array([-3.0, 0.5])).asnumpy(), [3.0, 0.5])


def test_basic_indexing_contiguity_matches_numpy():
    x = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    slices = [slice(None), slice(2), slice(1, 3), slice(None, None, 2), slice(0, 1),
              slice(None, None, -1), slice(2, None, -2), slice(3, 3)]
    is_contiguous = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    for key in itertools.product(slices, repeat=3):
        assert is_contiguous(key, x.shape) == x[key].flags.contiguous, key


def test_contiguous_basic_indexing_gives_views_others_copies():
    base = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    for key, view in [((1, slice(1, 3)), True), ((slice(None), 1), False), ((0, 1, slice(1, 3)), True),
                      ((slice(0, 1), slice(None), slice(None, None, 2)), False), ((1, None, 2), True)]:
        x = mx.nd.array(base)
        part = x[key]
        np.testing.assert_array_equal(part.asnumpy(), base[key])
        part[:] = -1
        expected = base.copy()
        if view:
            expected[key] = -1
        np.testing.assert_array_equal(x.asnumpy(), expected, err_msg=str(key))
    # autograd still records the slice op
    x = mx.nd.array(base)
    x.attach_grad()
    with mx.autograd.record():
        y = x[1, 1:3] * 2
    y.backward()
    expected = np.zeros_like(base)
    expected[1, 1:3] = 2
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)


def test_advanced_indexing_with_ndarray_tuples_and_setitem_with_leading_unit_dims():
    a = mx.nd.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(a[mx.nd.array([1, 1, 0]), mx.nd.array([0, 1, 0])].asnumpy(), [2, 3, 0])
    b = mx.nd.zeros((3, 4))
    b[1] = np.arange(4).reshape(1, 1, 4)
    b[2] = mx.nd.array(np.ones((1, 4)))
    np.testing.assert_array_equal(b.asnumpy(), [[0] * 4, [0, 1, 2, 3], [1] * 4])
    b[mx.nd.array([0]), 1:3] = np.full((1, 1, 2), 7.0)
    np.testing.assert_array_equal(b.asnumpy()[0], [0, 7, 7, 0])


def test_flatten_squeeze_expand_dims_copy_or_view():
    base = np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1)
    for call, expected in [(lambda x, **k: x.flatten(**k), base.reshape(1, 6)),
                           (lambda x, **k: x.squeeze(**k), base.reshape(2, 3)),
                           (lambda x, **k: x.squeeze(axis=(0, -1), **k), base.reshape(2, 3)),
                           (lambda x, **k: x.squeeze(axis=-1, **k), base.reshape(1, 2, 3)),
                           (lambda x, **k: x.expand_dims(-2, **k), base.reshape(1, 2, 3, 1, 1)),
                           (lambda x, **k: x.expand_dims(axis=1, **k), base.reshape(1, 1, 2, 3, 1))]:
        x = mx.nd.array(base)
        copy_, view = call(x), call(x, inplace=True)
        np.testing.assert_array_equal(copy_.asnumpy(), expected)
        np.testing.assert_array_equal(view.asnumpy(), expected)
        x[:] = -1
        np.testing.assert_array_equal(copy_.asnumpy(), expected)
        assert (view.asnumpy() == -1).all()
    assert mx.nd.ones((1, 1, 1)).squeeze(inplace=True).shape == (1,)
    with pytest.raises(ValueError, match="size 2"):
        mx.nd.ones((1, 2)).squeeze(axis=1, inplace=True)


def test_concatenate_moveaxis_and_load_frombuffer(tmp_path):
    parts = [np.random.RandomState(i).uniform(size=(2, i + 1, 3)).astype(np.float32) for i in range(3)]
    joined = mx.nd.concatenate([mx.nd.array(p) for p in parts], axis=1)
    np.testing.assert_array_equal(joined.asnumpy(), np.concatenate(parts, axis=1))
    one = mx.nd.array(parts[0])
    assert mx.nd.concatenate([one], always_copy=False) is one
    assert mx.nd.concatenate([one]) is not one
    with pytest.raises(ValueError):
        mx.nd.concatenate([one, mx.nd.ones((3, 1, 3))], axis=1)
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    for src, dst in [(0, 2), (-1, 0), ([0, 1], [-1, -2]), (3, 3)]:
        np.testing.assert_array_equal(mx.nd.moveaxis(mx.nd.array(x), src, dst).asnumpy(), np.moveaxis(x, src, dst))
    with pytest.raises(ValueError):
        mx.nd.moveaxis(mx.nd.array(x), 4, 0)
    path = str(tmp_path / "a.params")
    mx.nd.save(path, {"w": one, "b": joined})
    with open(path, "rb") as f:
        raw = f.read()
    loaded = mx.nd.load_frombuffer(raw)
    assert sorted(loaded) == ["b", "w"]
    np.testing.assert_array_equal(loaded["b"].asnumpy(), joined.asnumpy())
    with pytest.raises(mx.MXNetError):
        mx.nd.load_frombuffer(raw[:-10])


def test_legacy_row_functions_choose_fill_onehot():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([3, 0, 2])
    x = mx.nd.array(data)
    np.testing.assert_array_equal(mx.nd.choose_element_0index(x, mx.nd.array(idx)).asnumpy(),
                                  data[np.arange(3), idx])
    # MXNet's pick clips an index out of range (7 -> 3, -1 -> 0)
    np.testing.assert_array_equal(mx.nd.choose_element_0index(x, mx.nd.array([7, -1, 1])).asnumpy(),
                                  [3, 4, 9])
    filled = mx.nd.fill_element_0index(x, mx.nd.array([-1, -2, -3]), mx.nd.array(idx))
    expected = data.copy()
    expected[np.arange(3), idx] = [-1, -2, -3]
    np.testing.assert_array_equal(filled.asnumpy(), expected)
    np.testing.assert_array_equal(x.asnumpy(), data)  # lhs itself is unchanged
    out = mx.nd.full((3, 5), 7.0)
    assert mx.nd.onehot_encode(mx.nd.array([4, 0, 2]), out) is out
    np.testing.assert_array_equal(out.asnumpy(), np.eye(5)[[4, 0, 2]])


@pytest.mark.parametrize("start,stop,num,endpoint", [(0, 10, 4, True), (-3.7, 5, 5, True), (2.5, -1, 7, False),
                                                     (1, 2, 1, True), (1, 2, 1, False), (0, 1, 0, True)])
def test_linspace_computes_in_double_then_converts(start, stop, num, endpoint):
    if endpoint:
        step = (stop - start) / (num - 1) if num > 1 else 0.0
    else:
        step = (stop - start) / num
    exact = start + np.arange(num, dtype=np.float64) * step  # MXNet's rule: the last value may miss stop
    for dtype in ("float32", "float64", "int32"):
        out = mx.nd.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
        assert out.dtype == np.dtype(dtype) and out.shape == (num,)
        np.testing.assert_array_equal(out.asnumpy(), exact.astype(dtype))
    assert mx.nd.linspace(0, 1, 3).dtype == np.float32
    np.testing.assert_allclose(mx.nd.linspace(3, 9, 13).asnumpy(), np.linspace(3, 9, 13), rtol=1e-6)


def test_eye_matches_numpy():
    for n, m, k in [(3, 0, 0), (3, 4, -1), (4, 2, 1), (2, 5, 3), (3, 3, 5), (3, 3, -4), (1, 1, 0)]:
        out = mx.nd.eye(n, m, k)
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out.asnumpy(), np.eye(n, m or None, k))
    assert mx.nd.eye(2, dtype="int32").dtype == np.int32


def test_split_v2_follows_numpy_split():
    x = np.arange(2 * 6 * 3, dtype=np.float32).reshape(2, 6, 3)
    for spec in (3, (1, 3, 5), (0, 4), (6,)):
        parts = mx.nd.array(x).split_v2(spec, axis=1)
        for mine, ref in zip(parts, np.split(x, list(spec) if isinstance(spec, tuple) else spec, axis=1)):
            np.testing.assert_array_equal(mine.asnumpy(), ref)
    whole = mx.nd.split_v2(mx.nd.array(x), 1, axis=-1)
    assert isinstance(whole, mx.nd.NDArray) and whole.shape == x.shape
    squeezed = mx.nd.split_v2(mx.nd.array(x), 2, axis=0, squeeze_axis=True)
    assert [p.shape for p in squeezed] == [(6, 3), (6, 3)]
    with pytest.raises(ValueError, match="equal division"):
        mx.nd.split_v2(mx.nd.array(x), 4, axis=1)
    with pytest.raises(mx.MXNetError):
        mx.nd.split_v2(mx.nd.array(x), (4, 2), axis=1)
    with pytest.raises(mx.MXNetError, match="squeeze_axis"):
        mx.nd.split_v2(mx.nd.array(x), 3, axis=1, squeeze_axis=True)
    a = mx.nd.array(x)
    a.attach_grad()
    with mx.autograd.record():
        first, second = a.split_v2((2,), axis=1)
        loss = first.sum() + 3 * second.sum()
    loss.backward()
    expected = np.ones_like(x)
    expected[:, 2:] = 3
    np.testing.assert_array_equal(a.grad.asnumpy(), expected)


def test_cached_op_runs_a_symbol_imperatively_with_autograd():
    sym = mx.sym.Convolution(mx.sym.var("data"), mx.sym.var("weight"), mx.sym.var("bias"), kernel=(3, 3),
                             num_filter=4, name="c") + 2
    op = mx.nd.CachedOp(sym)
    rng = np.random.RandomState(1)
    data, weight = (mx.nd.array(rng.uniform(-1, 1, s)) for s in [(2, 3, 6, 6), (4, 3, 3, 3)])
    bias = mx.nd.ones((4,))
    ref = sym.eval(data=data, weight=weight, bias=bias)[0].asnumpy()
    np.testing.assert_allclose(op(data, weight, bias).asnumpy(), ref, rtol=1e-6)
    bias[:] = 2  # a later call reads the arrays' current values
    np.testing.assert_allclose(op(data, weight, bias).asnumpy(), ref + 1, rtol=1e-6)
    out = mx.nd.zeros(ref.shape)
    assert op(data, weight, bias, out=out) is out
    np.testing.assert_allclose(out.asnumpy(), ref + 1, rtol=1e-6)
    with pytest.raises(ValueError, match="3 inputs"):
        op(data, weight)
    # gradients through the op match those of the same graph bound directly
    weight.attach_grad()
    data.attach_grad()
    with mx.autograd.record():
        y = op(data, weight, bias) * 2
    y.backward()
    exe = sym.simple_bind(mx.cpu(), data=data.shape, weight=weight.shape, bias=bias.shape)
    exe.forward(is_train=True, data=data, weight=weight, bias=bias)
    exe.backward([mx.nd.full(ref.shape, 2.0)])
    np.testing.assert_allclose(weight.grad.asnumpy(), exe.grad_dict["weight"].asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(data.grad.asnumpy(), exe.grad_dict["data"].asnumpy(), rtol=1e-5)
    # another shape binds another executor
    assert op(mx.nd.ones((1, 3, 4, 4)), weight, bias).shape == (1, 4, 2, 2)


# ---- Executor -----------------------------------------------------------------------------------
def test_executor_reshape_shares_views_and_guards_sizes():
    y = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    small = exe.reshape(x=(3, 4))
    np.testing.assert_array_equal(small.forward()[0].asnumpy(), np.full((3, 4), 4.0))
    small.arg_arrays[0][:] = 2  # a view of the start of the old data array
    np.testing.assert_array_equal(exe.arg_arrays[0].asnumpy()[:3], np.full((3, 4), 2.0))
    np.testing.assert_array_equal(exe.arg_arrays[0].asnumpy()[3:], np.full((2, 4), 1.0))
    small.arg_arrays[1][:] = 0.5  # the weight, whose shape did not change, is shared
    np.testing.assert_array_equal(exe.arg_arrays[1].asnumpy(), np.full((4, 4), 0.5))
    exe.arg_arrays[1][:] = 1
    with pytest.raises(mx.MXNetError, match="allow_up_sizing"):
        exe.reshape(x=(6, 4))
    big = exe.reshape(allow_up_sizing=True, x=(6, 4))
    big.arg_arrays[0][:] = 0
    assert (exe.arg_arrays[0].asnumpy() != 0).all()
    np.testing.assert_array_equal(big.forward()[0].asnumpy(), np.zeros((6, 4)))
    with pytest.raises(mx.MXNetError, match="partial_shaping"):
        exe.reshape(x=(5, 3))  # the weight would change shape unasked
    wide = exe.reshape(partial_shaping=True, x=(5, 2))
    assert wide.arg_arrays[1].shape == (4, 2)


def test_debug_str_totals_the_arena_in_mb_as_mxnet():
    data = mx.sym.var("data")
    for _ in range(4):
        data = data * data
    exe = data.simple_bind(mx.cpu(), data=(4, 3, 256, 256))
    full = exe.debug_str()
    assert full.rstrip().endswith("Total %d MB allocated" % (exe.memory_report()["arena_bytes"] >> 20))
    no_grad = data.simple_bind(mx.cpu(), data=(4, 3, 256, 256), grad_req="null")
    stopped = mx.sym.stop_gradient(data).simple_bind(mx.cpu(), data=(4, 3, 256, 256))
    total = lambda e: int(e.debug_str().rsplit("Total ", 1)[1].split()[0])  # noqa: E731
    assert total(exe) > total(stopped) == total(no_grad) > 0
