"""Symbol API: MXNet's composition conventions, listing, inference, JSON in MXNet's format."""
import json
import os

import numpy as np
import pytest

import symnet as mx

DATA = os.path.join(os.path.dirname(__file__), "data")


def mlp():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data=data, num_hidden=128, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def test_auto_created_variables_and_listing():
    net = mlp()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                                    "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    assert net.list_auxiliary_states() == []
    assert net.list_inputs() == net.list_arguments()
    assert net.name == "softmax"


def test_auto_names_count_per_op():
    mx.name.reset()
    a = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3)
    b = mx.sym.FullyConnected(a, num_hidden=3)
    c = mx.sym.Activation(b, act_type="relu")
    assert (a.name, b.name, c.name) == ("fullyconnected0", "fullyconnected1", "activation0")
    assert c.list_arguments() == ["x", "fullyconnected0_weight", "fullyconnected0_bias",
                                  "fullyconnected1_weight", "fullyconnected1_bias"]
    with mx.name.Prefix("stage1_"):
        d = mx.sym.Activation(c, act_type="tanh")
    assert d.name.startswith("stage1_activation")


def test_explicit_inputs_positional_and_keyword():
    w = mx.sym.var("shared_w")
    fc = mx.sym.FullyConnected(mx.sym.var("x"), w, num_hidden=4, no_bias=True, name="fc")
    assert fc.list_arguments() == ["x", "shared_w"]
    fc2 = mx.sym.FullyConnected(data=mx.sym.var("y"), weight=w, num_hidden=4, name="fc2")
    assert fc2.list_arguments() == ["y", "shared_w", "fc2_bias"]
    with pytest.raises(mx.MXNetError, match="no input named 'wieght'"):
        mx.sym.FullyConnected(mx.sym.var("x"), wieght=w, num_hidden=4)


def test_bad_parameters_name_op_node_key_and_choices():
    with pytest.raises(mx.MXNetError) as e:
        mx.sym.FullyConnected(mx.sym.var("x"), num_hiden=4, name="fcx")
    msg = str(e.value)
    assert "FullyConnected" in msg and "'fcx'" in msg and "num_hiden" in msg and "num_hidden" in msg
    with pytest.raises(mx.MXNetError, match=r"'fc'.*num_hidden.*should be greater equal to 1"):
        mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=0, name="fc")
    with pytest.raises(mx.MXNetError, match=r"'act'.*valid values.*relu"):
        mx.sym.Activation(mx.sym.var("x"), act_type="rellu", name="act")
    with pytest.raises(mx.MXNetError, match=r"'fc'.*num_hidden.*expect int"):
        mx.sym.FullyConnected(mx.sym.var("x"), num_hidden="many", name="fc")
    with pytest.raises(mx.MXNetError, match="Required parameter num_hidden"):
        mx.sym.FullyConnected(mx.sym.var("x"), name="fc")


def test_group_internals_children_getitem():
    net = mlp()
    internals = net.get_internals()
    assert "fc1_output" in internals.list_outputs()
    assert "data" in internals.list_outputs()
    fc1 = internals["fc1_output"]
    assert fc1.list_arguments() == ["data", "fc1_weight", "fc1_bias"]
    g = mx.sym.Group([fc1, net])
    assert g.list_outputs() == ["fc1_output", "softmax_output"]
    assert len(g) == 2 and g[1].name == "softmax"
    assert [s.name for s in fc1.get_children()] == ["data", "fc1_weight", "fc1_bias"]
    assert mx.sym.var("v").get_children() is None
    with pytest.raises(mx.MXNetError, match="no output named"):
        internals["nope_output"]


def test_arithmetic_builds_the_mxnet_ops():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    expr = (a + b) * 2 - 1 / a
    ops = [n["op"] for n in json.loads(expr.tojson())["nodes"]]
    assert ops == ["null", "null", "elemwise_add", "_mul_scalar", "_rdiv_scalar", "elemwise_sub"]
    out = expr.eval(a=mx.nd.array([1.0, 2.0]), b=mx.nd.array([3.0, 4.0]))[0].asnumpy()
    np.testing.assert_allclose(out, [7.0, 11.5])


def test_attributes():
    v = mx.sym.var("w", shape=(3, 4), lr_mult=2.0, dtype="float16", attr={"mood": "calm"})
    assert v.attr("__shape__") == "(3, 4)"
    assert v.attr("lr_mult") == "2.0"
    assert v.attr("mood") == "calm"
    fc = mx.sym.FullyConnected(v, num_hidden=2, name="fc", attr={"ctx_group": "dev1"})
    d = fc.attr_dict()
    assert d["fc"]["num_hidden"] == "2" and d["fc"]["__ctx_group__"] == "dev1"
    assert d["w"]["__dtype__"] == "2"


def test_infer_shape_and_type():
    net = mlp()
    arg, out, aux = net.infer_shape(data=(32, 20))
    assert dict(zip(net.list_arguments(), arg)) == {
        "data": (32, 20), "fc1_weight": (128, 20), "fc1_bias": (128,), "fc2_weight": (10, 128),
        "fc2_bias": (10,), "softmax_label": (32,)}
    assert out == [(32, 10)] and aux == []
    # positional shapes follow list_arguments()
    assert net.infer_shape((32, 20))[1] == [(32, 10)]
    # incomplete: None triple with a warning, partial gives what is known
    fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc")
    with pytest.warns(UserWarning, match="x"):
        assert fc.infer_shape() == (None, None, None)
    arg, out, _ = fc.infer_shape_partial()
    assert arg[1] == () and out == [()]  # MXNet 1.x writes an unknown shape as ()
    types = net.infer_type(data="float16")
    assert types[0][0] == np.float16 and types[1] == [np.float16]
    # declared shapes on variables count, MXNet's 0 = unknown dim
    x = mx.sym.var("x", shape=(0, 7))
    assert mx.sym.FullyConnected(x, num_hidden=3, name="f").infer_shape(x=(5, 7))[1] == [(5, 3)]


def test_json_round_trip_preserves_structure():
    net = mlp()
    text = net.tojson()
    doc = json.loads(text)
    assert set(doc) == {"nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"}
    assert doc["attrs"]["mxnet_version"] == ["int", 10901]
    back = mx.sym.load_json(text)
    assert back.tojson() == text
    assert back.list_arguments() == net.list_arguments()
    assert back.attr_dict() == net.attr_dict()


def test_load_mxnet_1x_json(tmp_path):
    net = mx.sym.load(os.path.join(DATA, "mxnet1x_mlp-symbol.json"))
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                                    "fc3_weight", "fc3_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    assert net.get_internals()["fc3_weight"].attr("__lr_mult__") == "2.0"
    _, out, _ = net.infer_shape(data=(8, 64))
    assert out == [(8, 10)]
    # what we write loads back the same, and saving is stable
    path = str(tmp_path / "m-symbol.json")
    net.save(path)
    again = mx.sym.load(path)
    assert again.tojson() == net.tojson()


def test_load_legacy_json():
    net = mx.sym.load(os.path.join(DATA, "mxnet08_legacy-symbol.json"))
    assert net.list_arguments() == ["data", "fc_weight", "fc_bias"]
    d = net.attr_dict()
    assert d["fc"]["num_hidden"] == "5" and d["fc"]["__ctx_group__"] == "stage1"
    with pytest.warns(UserWarning):  # data's declared shape (0, 20) leaves the batch unknown
        assert net.infer_shape() == (None, None, None)
    assert net.infer_shape_partial()[0][1] == (5, 20)
    assert net.infer_shape(data=(4, 20))[1] == [(4, 5)]


@pytest.mark.parametrize("text,pattern", [
    ("{", "JSON parse error at line 1"),
    ('{"nodes": 3, "heads": []}', '"nodes" should be a array'),
    ('{"nodes": [{"op": "Foo", "name": "n0", "inputs": []}], "heads": [[0, 0, 0]]}',
     "node 0 \\('n0'\\).*unknown operator 'Foo'"),
    ('{"nodes": [{"op": "Activaton", "name": "a", "inputs": []}], "heads": [[0, 0, 0]]}',
     "did you mean Activation"),
    ('{"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "Activation", "name": "a",'
     ' "attrs": {"act_type": "relu"}, "inputs": [[5, 0, 0]]}], "heads": [[1, 0, 0]]}',
     "not an earlier node"),
    ('{"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "Activation", "name": "a",'
     ' "attrs": {"act_type": "relu", "bogus": "1"}, "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]}',
     "unknown attribute 'bogus'"),
    ('{"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[3, 0, 0]]}',
     "a head refers to node 3"),
])
def test_bad_json_gives_clear_errors(text, pattern):
    with pytest.raises(mx.MXNetError, match=pattern):
        mx.sym.load_json(text)


def test_generated_functions_have_docs():
    doc = mx.sym.FullyConnected.__doc__
    assert "num_hidden" in doc and "Number of hidden nodes" in doc
    assert "act_type" in mx.sym.Activation.__doc__
    assert hasattr(mx.sym, "_plus_scalar") and hasattr(mx.sym, "ElementWiseSum")
    assert not hasattr(mx.sym, "_backward_FullyConnected")
