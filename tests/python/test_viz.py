"""mx.viz.print_summary and plot_network (MXNet's), on ResNet-50 and a small network."""
import re
import shutil

import numpy as np
import pytest

import symnet as mx


def resnet50():
    return mx.models.resnet(50, "1.5", 1000, (3, 224, 224))


def test_print_summary_counts_resnet50s_parameters(capsys):
    net = resnet50()
    total = mx.viz.print_summary(net, shape={"data": (1, 3, 224, 224)})
    # ResNet-50's well-known size: 25,557,032 trainable parameters (BatchNorm's gamma and beta
    # included), the same as the sum of the bound arguments other than the inputs
    assert total == 25557032
    arg_shapes, _, aux_shapes = net.infer_shape(data=(1, 3, 224, 224))
    args = dict(zip(net.list_arguments(), arg_shapes))
    assert total == sum(int(np.prod(s)) for n, s in args.items() if n not in ("data", "softmax_label"))
    out = capsys.readouterr().out
    assert re.search(r"conv0\(Convolution\) +64x112x112 +9408 +data", out), out[:2000]
    assert re.search(r"fc1\(FullyConnected\) +1000 +2049000 +flatten1", out)
    assert "Total params: 25557032" in out
    assert "Auxiliary states (not trained): %d" % sum(int(np.prod(s)) for s in aux_shapes) in out


def test_print_summary_without_shapes_lists_the_layers(capsys):
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    assert mx.viz.print_summary(mx.sym.Activation(net, act_type="relu", name="act")) is None
    out = capsys.readouterr().out
    assert "fc(FullyConnected)" in out and re.search(r"act\(Activation\) +fc", out)


def test_plot_network_draws_ops_inputs_and_shapes():
    pytest.importorskip("graphviz")  # tools/setup.sh installs it
    net = resnet50()
    dot = mx.viz.plot_network(net, shape={"data": (1, 3, 224, 224)})
    src = dot.source
    ops = [n for n in net.get_internals().list_outputs() if n.endswith("_output")]
    assert src.count("fillcolor=") == len(ops) + 2  # every op, plus data and softmax_label
    assert 'label="Convolution\\n7x7/2x2, 64"' in src
    assert "64x112x112" in src  # edges carry the shapes
    assert "conv0_weight" not in src
    full = mx.viz.plot_network(net, hide_weights=False).source
    assert "conv0_weight" in full
    if shutil.which("dot"):  # rendering needs the graphviz binaries (Debian: graphviz)
        assert dot.pipe(format="svg").startswith(b"<?xml")
