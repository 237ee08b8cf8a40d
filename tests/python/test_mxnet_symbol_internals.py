"""Symbol.get_internals and get_children as MXNet 1.9.1 lists them: internals hold the outputs a
user sees (not BatchNorm's saved mean and variance nor Dropout's mask), and a node lists its
inputs once however many of its outputs the symbol holds."""
import pytest

import symnet as mx
from symnet import _core


def test_internals_hold_the_visible_outputs_only():
    x = mx.sym.var("x")
    net = mx.sym.Dropout(mx.sym.BatchNorm(x, name="bn"), p=0.5, name="do")
    assert net.get_internals().list_outputs() == ["x", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var",
                                                  "bn_output", "do_output"]
    # with output_mean_var BatchNorm shows its three outputs, and so do the internals
    bn3 = mx.sym.BatchNorm(x, output_mean_var=True, name="bn")
    assert bn3.get_internals().list_outputs()[-3:] == bn3.list_outputs() == ["bn_output", "bn_mean", "bn_var"]
    # an internal output still binds and runs
    fc = mx.sym.FullyConnected(net, num_hidden=2, name="fc")
    inner = fc.get_internals()["bn_output"]
    exe = inner.simple_bind(mx.cpu(), x=(3, 4))
    exe.forward()
    assert exe.outputs[0].shape == (3, 4)


def test_children_of_a_multi_output_node_once():
    x = mx.sym.var("x")
    parts = mx.sym.SliceChannel(x, num_outputs=3, name="sc")
    # the core's answer, without Python's help
    assert _core.Symbol.get_children(parts.handle).list_outputs() == ["x"]
    assert parts.get_children().list_outputs() == ["x"]
    # outputs 0 and 2 of one node: its input once, in the order the nodes first appear
    both = mx.sym.Group([parts[0], mx.sym.var("y") * 2, parts[2]])
    assert both.get_children().list_outputs() == ["x", "y"]


def test_gen_atomic_symbol_clones_the_head_operator():
    data = mx.sym.Variable("data")
    s = mx.sym.RNN(data, mx.sym.Variable("param"), mx.sym.Variable("h0"), mx.sym.Variable("h1"),
                   state_size=10, num_layers=2, bidirectional=True, state_outputs=True,
                   mode="lstm", name="rnn")
    atomic = s._gen_atomic_symbol()
    assert atomic.list_outputs() == s.list_outputs()  # all three outputs of the op
    assert atomic[0].attr("state_size") == "10" and atomic[0].attr("mode") == "lstm"
    assert "data" not in atomic.list_arguments()  # its own inputs, not the graph's
    with pytest.raises(mx.base.MXNetError, match="data is a variable"):
        data._gen_atomic_symbol()
