"""MXNet 1.9.1 behaviours of mx.io, mx.recordio and mx.contrib.amp that MXNet's own tests
(unittest/test_io.py, unittest/test_recordio.py, mkl/test_contrib_amp.py) rely on."""
import collections
import re

import numpy as np
import pytest

import symnet as mx
from symnet.contrib.amp import amp


# ---- mx.io ------------------------------------------------------------------------------------
def test_ndarrayiter_idx_is_the_shuffled_order():
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    it = mx.io.NDArrayIter(data, np.arange(10), batch_size=1, shuffle=True, seed=3)
    order = np.asarray(it.idx)
    assert sorted(order.tolist()) == list(range(10))
    assert order.tolist() != list(range(10))  # seed 3 does shuffle
    for i, batch in enumerate(it):
        np.testing.assert_array_equal(batch.data[0].asnumpy(), data[order[i]][None])
        assert batch.label[0].asnumpy()[0] == order[i]
    it.reset()  # the next epoch has its own order, and idx follows it
    order2 = np.asarray(it.idx)
    first = next(it)
    np.testing.assert_array_equal(first.data[0].asnumpy(), data[order2[0]][None])


def test_ndarrayiter_orders_named_arrays_by_name():
    a, b = np.zeros((4, 2)), np.ones((4, 3))
    it = mx.io.NDArrayIter({"zeta": a, "alpha": b}, batch_size=2)
    assert [d.name for d in it.provide_data] == ["alpha", "zeta"]
    batch = next(it)
    assert [x.shape for x in batch.data] == [(2, 3), (2, 2)]


def test_ndarrayiter_layout_names_the_batch_axis():
    data = np.arange(60, dtype=np.float32).reshape(3, 10, 2)
    label = np.arange(30, dtype=np.float32).reshape(3, 10)
    it = mx.io.NDArrayIter(data, label, batch_size=4, layout="TNC")
    assert [(d.shape, d.layout) for d in it.provide_data] == [((3, 4, 2), "TNC")]
    assert [d.shape for d in it.provide_label] == [(3, 4)]
    batches = list(it)
    assert len(batches) == 3 and batches[-1].pad == 2
    np.testing.assert_array_equal(batches[1].data[0].asnumpy(), data[:, 4:8])
    np.testing.assert_array_equal(batches[1].label[0].asnumpy(), label[:, 4:8])
    assert mx.io.NDArrayIter(np.zeros((4, 2)), batch_size=2, layout="NTC").provide_data[0].layout == "NTC"
    with pytest.raises(ValueError, match="no batch axis"):
        mx.io.NDArrayIter(data, batch_size=2, layout="TC")


def test_ndarrayiter_hard_reset_drops_the_rolled_over_rest():
    data = np.arange(10, dtype=np.float32).reshape(10, 1)
    soft, hard = (mx.io.NDArrayIter(data, batch_size=4, last_batch_handle="roll_over") for _ in range(2))
    assert len(list(soft)) == 2 and len(list(hard)) == 2
    soft.reset()  # the two samples left over open the next epoch
    assert next(soft).data[0].asnumpy().ravel().tolist() == [8, 9, 0, 1]
    hard.hard_reset()
    assert next(hard).data[0].asnumpy().ravel().tolist() == [0, 1, 2, 3]

def test_databatch_str_names_the_shapes():
    batch = mx.io.DataBatch(data=[mx.nd.ones((2, 3))])
    assert str(batch) == "DataBatch: data shapes: [(2, 3)] label shapes: None"
    batch = mx.io.DataBatch(data=[mx.nd.ones((2, 3)), mx.nd.ones((7, 8))], label=[mx.nd.ones((4, 5))])
    assert re.fullmatch(r"DataBatch: data shapes: \[\(2, 3\), \(7, 8\)\] label shapes: \[\(4, 5\)\]", str(batch))


def test_dataiter_subclass_with_only_next_iterates():
    class Three(mx.io.DataIter):
        def __init__(self):
            super().__init__(1)
            self.n = 0

        def next(self):
            self.n += 1
            if self.n > 3:
                raise StopIteration
            return mx.io.DataBatch([mx.nd.ones((1,)) * self.n])

    assert [b.data[0].asscalar() for b in Three()] == [1, 2, 3]


def test_csviter_getdata_is_one_array(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("".join("%d,%d\n" % (i, i + 1) for i in range(5)))
    it = mx.io.CSVIter(data_csv=str(path), data_shape=(2,), batch_size=2)
    batch = next(it)
    # MXNet's C++ iterators: getdata()/getlabel() give one NDArray; the batch holds lists
    assert isinstance(it.getdata(), mx.nd.NDArray) and isinstance(it.getlabel(), mx.nd.NDArray)
    np.testing.assert_array_equal(it.getdata().asnumpy(), [[0, 1], [1, 2]])
    assert isinstance(batch.data, list) and len(batch.data) == 1
    np.testing.assert_array_equal(batch.data[0].asnumpy(), it.getdata().asnumpy())
    assert isinstance(batch.label, list) and batch.label[0].shape == (2,)


# ---- mx.recordio ------------------------------------------------------------------------------
@pytest.mark.parametrize("label", [3.0, np.array([0.5, 0.25, 2.0], dtype=np.float32)])
def test_recordio_pack_takes_a_plain_tuple(label):
    packed = mx.recordio.pack((0, label, 7, 9), b"payload")
    header, payload = mx.recordio.unpack(packed)
    assert payload == b"payload"
    assert isinstance(header, mx.recordio.IRHeader)
    assert (header.id, header.id2) == (7, 9)
    np.testing.assert_array_equal(header.label, label)
    assert packed == mx.recordio.pack(mx.recordio.IRHeader(0, label, 7, 9), b"payload")


# ---- mx.contrib.amp ---------------------------------------------------------------------------
def test_amp_module_holds_the_lists():
    assert amp.lists.symbol_bf16.BF16_FUNCS == amp.list_lp16_ops("bfloat16")
    assert amp.lists.symbol_fp16.FP16_FUNCS == amp.list_lp16_ops("float16")


@pytest.mark.parametrize("target,names", [
    ("bfloat16", ["BF16_FUNCS", "BF16_FP32_FUNCS", "FP32_FUNCS", "WIDEST_TYPE_CASTS"]),
    ("float16", ["FP16_FUNCS", "FP16_FP32_FUNCS", "FP32_FUNCS", "WIDEST_TYPE_CASTS"])])
def test_amp_lists_name_each_op_once(target, names):
    mod = amp.lists.symbol_bf16 if target == "bfloat16" else amp.lists.symbol_fp16
    conditional = [c[0] for c in mod.CONDITIONAL_FP32_FUNCS]
    assert "Activation" in conditional
    every = sum((list(getattr(mod, n)) for n in names), []) + conditional
    twice = [op for op, n in collections.Counter(every).items() if n > 1]
    assert twice == []
    # nothing was lost: the lists still cover every op the rewrite knows
    assert set(every) == set(mx._core.amp_lists(target))


def _fc_plus_sin():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    return mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True) + mx.sym.sin(y)


@pytest.mark.parametrize("kwargs", [
    dict(target_dtype_ops=["FullyConnected"], fp32_ops=["elemwise_add"]),  # a widest-type op
    dict(target_dtype_ops=["FullyConnected"], fp32_ops=["Activation"],
         conditional_fp32_ops=[("Activation", "act_type", ["selu"])]),
    dict(target_dtype_ops=["Activation"], fp32_ops=["sin"],
         conditional_fp32_ops=[("Activation", "act_type", ["selu"])]),
    dict(target_dtype_ops=["FullyConnected"], fp32_ops=["FullyConnected"]),
    dict(target_dtype_ops="FullyConnected"),
    dict(conditional_fp32_ops=[("Activation", "act_type", "selu")])])
def test_amp_conflicting_lists_raise_assertion_error(kwargs):
    sym = _fc_plus_sin()
    with pytest.raises(AssertionError):
        amp.convert_symbol(sym, target_dtype="bfloat16", **kwargs)
    with pytest.raises(AssertionError):
        amp.convert_model(sym, {"y": mx.nd.ones((10, 4))}, {}, target_dtype="bfloat16", **kwargs)


def test_amp_consistent_lists_still_convert():
    converted = amp.convert_symbol(_fc_plus_sin(), target_dtype="bfloat16", target_dtype_ops=["FullyConnected"],
                                   fp32_ops=["sin"])
    casts = [n for n in converted.get_internals().list_outputs() if "amp_cast" in n]
    assert {"x_amp_cast_bfloat16_output", "y_amp_cast_bfloat16_output"} <= set(casts)


def test_base_lib_lists_op_names_through_ctypes():
    import ctypes
    plist = ctypes.POINTER(ctypes.c_char_p)()
    size = ctypes.c_uint()
    assert mx.base._LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(plist)) == 0
    names = [plist[i].decode() for i in range(size.value)]
    assert names == list(mx._core.list_ops())
    assert "FullyConnected" in names
    with pytest.raises(AttributeError, match="symnet has no C API"):
        mx.base._LIB.MXNDArrayCreate


def _declared_dtypes(sym):
    return {k: v["__dtype__"] for k, v in sym.attr_dict().items() if "__dtype__" in v}


def test_amp_convert_symbol_data_names_default_to_undeclared_inputs():
    w = mx.sym.var("w", dtype="float32")  # declared: a parameter
    net = mx.sym.Convolution(mx.sym.var("data"), w, kernel=(3, 3), num_filter=4, no_bias=True, name="c")
    net = mx.sym.Convolution(net, kernel=(3, 3), num_filter=4, name="c2")
    bf16 = "12"  # MXNet's type flag of bfloat16
    out = amp.convert_symbol(net, target_dtype="bfloat16", cast_optional_params=True)
    # MXNet: data, c2_weight and c2_bias declare no dtype, so they are data and stay float32
    assert _declared_dtypes(out) == {"w": bf16}
    out = amp.convert_symbol(net, target_dtype="bfloat16", cast_optional_params=True, data_names=["data"])
    assert _declared_dtypes(out) == {"w": bf16, "c2_weight": bf16, "c2_bias": bf16}


def test_amp_convert_model_data_names_default_to_inputs_without_values():
    net = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc")
    args = {"fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.ones((3,))}
    sym, new_args, _ = amp.convert_model(net, args, {}, target_dtype="bfloat16", cast_optional_params=True)
    # x (no value given) is the data and stays float32; the parameters go to bfloat16
    assert sym.infer_type(x="float32")[0][0] == np.float32
    assert {k: v.dtype for k, v in new_args.items()} == {"fc_weight": mx.base.bfloat16, "fc_bias": mx.base.bfloat16}


def test_amp_convert_hybrid_block_cast_optional_params_keeps_params_16_bit():
    # explicit prefixes: auto names (dense0_) depend on what earlier tests in the process made
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(8, in_units=4, prefix="d0_"), mx.gluon.nn.Dense(3, in_units=8, prefix="d1_"))
    net.initialize()
    net.hybridize()
    x = mx.nd.random.uniform(shape=(2, 4))
    want = net(x).asnumpy()
    shared = amp.convert_hybrid_block(net, "bfloat16")
    assert shared.collect_params()["net_d0_weight"] is net.collect_params()["net_d0_weight"]
    low = amp.convert_hybrid_block(net, "bfloat16", cast_optional_params=True)
    assert {p.dtype for p in low.collect_params().values()} == {"bfloat16"}
    assert low.collect_params()["net_d0_weight"].data().dtype == mx.base.bfloat16
    # the source block keeps its float32 parameters; both blocks compute the same (to bfloat16)
    assert {p.dtype for p in net.collect_params().values()} == {"float32"}
    for block in (shared, low):
        got = block(x)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got.asnumpy(), want, rtol=0.05, atol=0.05)
