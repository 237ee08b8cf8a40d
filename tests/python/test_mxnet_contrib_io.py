"""mx.contrib.io.DataLoaderIter as MXNet 1.9.1's: batch size and provide_data/provide_label from
the loader's first batch, every batch cast to dtype, last_batch='keep' padded (float32 arrays,
getpad), 'rollover' carrying samples into the next epoch, reset restarting the loader, and Module
predicting from it. The expected values are MXNet 1.9.1's, printed by running the same calls on
it (its unittest/test_contrib_io.py needs MNIST downloaded)."""
import numpy as np

import symnet as mx
from symnet.contrib.io import DataLoaderIter

X = np.arange(7 * 2 * 3, dtype=np.float64).reshape(7, 2, 3)
Y = np.arange(7, dtype=np.int32)


def _epoch(it):
    """(pad, data dtype, label dtype, sum of the real data rows, real labels) per batch."""
    out = []
    for b in it:
        n = it.batch_size - b.pad
        assert b.data[0].shape == (3, 2, 3) and b.label[0].shape == (3,) and b.index is None
        out.append((b.pad, np.dtype(b.data[0].dtype).name, np.dtype(b.label[0].dtype).name,
                    b.data[0].asnumpy()[:n].sum().item(), b.label[0].asnumpy()[:n].tolist()))
    it.reset()
    return out


def _iter(last_batch):
    ds = mx.gluon.data.ArrayDataset(X, Y)
    return DataLoaderIter(mx.gluon.data.DataLoader(ds, 3, last_batch=last_batch), data_name="x",
                          label_name="y", dtype="float16")


def test_descriptions_and_casting():
    it = _iter("discard")
    assert it.batch_size == 3
    assert [(d.name, d.shape, d.dtype) for d in it.provide_data] == [("x", (3, 2, 3), "float16")]
    assert [(d.name, d.shape, d.dtype) for d in it.provide_label] == [("y", (3,), "float16")]
    first = [(0, "float16", "float16", 153.0, [0, 1, 2]), (0, "float16", "float16", 477.0, [3, 4, 5])]
    assert _epoch(it) == first and _epoch(it) == first
    default = DataLoaderIter(mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(X, Y), 4))
    assert repr(default.provide_label) == "[DataDesc[softmax_label,(4,),float32,NCHW]]"
    assert np.dtype(next(default).data[0].dtype) == np.float32 and default.getindex() is None


def test_keep_pads_and_rollover_carries_over():
    keep = _epoch(_iter("keep"))
    # the short batch comes padded to the batch size, in float32 whatever dtype says (MXNet's)
    assert keep[2] == (2, "float32", "float32", 231.0, [6])
    roll = _iter("rollover")
    assert len(_epoch(roll)) == 2
    assert [(b[3], b[4]) for b in _epoch(roll)] == [(297.0, [6, 0, 1]), (369.0, [2, 3, 4])]


def test_module_predicts_from_it():
    it = DataLoaderIter(mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(X, Y), 3))
    mod = mx.mod.Module(mx.sym.FullyConnected(mx.sym.flatten(mx.sym.var("data")), num_hidden=2, name="dlifc"),
                        label_names=None)
    mod.bind(it.provide_data)
    mod.init_params(mx.init.One())
    # the loader keeps the last (short) batch; predict drops its padding
    np.testing.assert_allclose(mod.predict(it).asnumpy(), [[15, 15], [51, 51], [87, 87], [123, 123], [159, 159],
                                                           [195, 195], [231, 231]])
