"""Partial shape inference as MXNet 1.9.1's infer_shape_partial: ops infer what they can from
partially known inputs and fill inputs back from outputs; a 0 given to infer_shape(_partial) is
an unknown dim (without NumPy shapes), and infer_shape reads one the graph leaves undecided as
an empty dim."""
import pytest

import symnet as mx


def _args(sym, arg):
    return dict(zip(sym.list_arguments(), arg))


def test_dot_gives_the_known_dims_of_partial_inputs():
    z = mx.sym.dot(mx.sym.var("x"), mx.sym.var("y"), name="d")
    assert z.infer_shape_partial(x=(0, 3, 4), y=(4, 5))[1] == [(0, 3, 5)]
    with mx.np_shape(True):
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(4, 5))[1] == [(-1, 3, 5)]
    zt = mx.sym.dot(mx.sym.var("x"), mx.sym.var("y"), transpose_a=True, name="dt")
    assert zt.infer_shape_partial(x=(4, 0, 3), y=(4, 5))[1] == [(0, 3, 5)]


def test_batch_dot_needs_the_contracted_dims():
    z = mx.sym.batch_dot(mx.sym.var("x"), mx.sym.var("y"), name="b")
    assert z.infer_shape_partial(x=(0, 3, 4), y=(0, 4, 5))[1] == [(0, 3, 5)]
    # the rows of rhs are unknown: the output is not decided
    assert z.infer_shape_partial(x=(0, 3, 4), y=(0, 0, 5))[1] == [()]
    with mx.np_shape(True):
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, 4, 5))[1] == [(-1, 3, 5)]
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, -1, 5))[1] == [None]
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(2, 4, 5))[1] == [(2, 3, 5)]


def test_transpose_works_both_ways():
    y = mx.sym.transpose(mx.sym.var("x"), axes=(0, 3, 2, 1), name="t")
    assert y.infer_shape_partial(x=(0, 3, 224, 224))[1] == [(0, 224, 224, 3)]
    with mx.np_shape(True):
        assert y.infer_shape_partial(x=(-1, 3, 224, 224))[1] == [(-1, 224, 224, 3)]
    # the input from the output
    s = y + mx.sym.var("o")
    arg, _, _ = s.infer_shape(o=(2, 3, 4, 5))
    assert _args(s, arg)["x"] == (2, 5, 4, 3)


def test_concat_fills_inputs_from_the_output():
    c = mx.sym.Concat(mx.sym.var("a", shape=(0, 10)), mx.sym.var("b", shape=(0, 5)), num_args=2,
                      dim=1, name="c")
    d = mx.sym.var("d", shape=(2, 0)) + c
    arg, out, _ = d.infer_shape()
    assert _args(d, arg) == {"a": (2, 10), "b": (2, 5), "d": (2, 15)} and out == [(2, 15)]
    # an input's concat-axis dim that alone is unknown is what the output leaves over
    c2 = mx.sym.Concat(mx.sym.var("a"), mx.sym.var("b"), num_args=2, dim=1, name="c2")
    s = c2 + mx.sym.var("o")
    arg, _, _ = s.infer_shape(b=(2, 5), o=(2, 15))
    assert _args(s, arg)["a"] == (2, 10)


def test_split_fills_its_input_from_a_part():
    b = mx.sym.SliceChannel(mx.sym.var("a", shape=(0, 10)), num_outputs=10, axis=1,
                            squeeze_axis=True, name="s")
    d = b[1] + mx.sym.var("c", shape=(5,))
    assert _args(d, d.infer_shape()[0])["a"] == (5, 10)
    b = mx.sym.SliceChannel(mx.sym.var("a", shape=(0, 15, 0)), num_outputs=3, name="s2")
    d = b[1] + mx.sym.var("c", shape=(3, 5, 2))
    assert _args(d, d.infer_shape()[0])["a"] == (3, 15, 2)
    # from the parts alone, the input's ndim too
    b = mx.sym.SliceChannel(mx.sym.var("a"), num_outputs=3, name="s3")
    d = b[0] + mx.sym.var("c")
    assert _args(d, d.infer_shape(c=(3, 5, 2))[0])["a"] == (3, 15, 2)


def test_convolution_takes_channels_from_the_weight_and_sizes_from_the_output():
    a = mx.sym.var("a", shape=(0, 10, 0, 0))
    b = mx.sym.Convolution(a, num_filter=21, kernel=(3, 3), dilate=(1, 1), pad=(1, 1), name="cv")
    d = b + mx.sym.var("c", shape=(5, 21, 32, 32))
    assert _args(d, d.infer_shape()[0])["a"] == (5, 10, 32, 32)
    # partial data: the weight gets what is known, the output what the data decides
    data = mx.sym.var("data", shape=(1, 0, 0, 0))
    conv = mx.sym.Convolution(data, weight=mx.sym.var("weight"), pad=(3, 3), num_filter=64,
                              stride=(2, 2), no_bias=True, kernel=(7, 7), name="cv2")
    arg, out, _ = conv.infer_shape_partial()
    assert _args(conv, arg) == {"data": (1, 0, 0, 0), "weight": (64, 0, 7, 7)}
    assert out == [(1, 64, 0, 0)]
    # the data's channels from a given weight
    conv3 = mx.sym.Convolution(mx.sym.var("x"), weight=mx.sym.var("w"), num_filter=4,
                               kernel=(3, 3), num_group=2, no_bias=True, name="cv3")
    arg, out, _ = conv3.infer_shape_partial(x=(0, 0, 8, 8), w=(4, 3, 3, 3))
    assert _args(conv3, arg)["x"] == (0, 6, 8, 8) and out == [(0, 4, 6, 6)]


def test_where_waits_for_a_known_condition():
    w = mx.sym.where(mx.sym.var("cond"), mx.sym.var("x"), mx.sym.var("y"), name="w")
    assert w.infer_shape_partial(cond=(0, 2), x=(0, 2), y=(0, 2))[1] == [()]
    assert w.infer_shape_partial(cond=(0,), x=(2, 2), y=(2, 2))[1] == [()]
    assert w.infer_shape_partial(cond=(2,), x=(2, 3))[1] == [(2, 3)]
    with mx.np_shape(True):
        assert w.infer_shape_partial(cond=(-1, 2), x=(-1, 2), y=(-1, 2))[1] == [None]
        assert w.infer_shape_partial(cond=(-1,), x=(2, 2), y=(2, 2))[1] == [None]


def test_a_given_zero_is_unknown_first_then_empty():
    s = mx.sym.var("a") + mx.sym.var("b")
    # MXNet 1.x: the 0 is an unknown dim, decided by the graph
    arg, out, _ = s.infer_shape(a=(0, 10), b=(12, 0))
    assert arg == [(12, 10), (12, 10)] and out == [(12, 10)]
    # nothing decides it: an empty dim (symnet's zero-size arrays)
    assert mx.sym.sin(mx.sym.var("x")).infer_shape(x=(4, 0))[1] == [(4, 0)]
    # with NumPy shapes a 0 is empty at once
    with mx.np_shape(True):
        with pytest.raises(mx.MXNetError):
            s.infer_shape(a=(0, 10), b=(12, 10))


def test_gluon_reads_a_zero_in_an_array_shape_as_empty():
    # deferred initialization infers from actual arrays: a batch of none still decides the
    # parameters (BatchNorm's rule needs its input fully known)
    net = mx.gluon.nn.BatchNorm(prefix="zbn_")
    net.initialize()
    assert net(mx.nd.zeros((0, 3, 4))).shape == (0, 3, 4)
    assert net.gamma.shape == (3,)
