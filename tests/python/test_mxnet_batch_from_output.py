"""FullyConnected and Convolution infer an unknown batch (0 in a legacy RNN cell's begin state,
mx.sym.zeros((0, n))) from a known output shape, as MXNet 1.9.1's shape functions do."""
import numpy as np

import symnet as mx


def test_fully_connected_takes_the_batch_from_its_output():
    fc = mx.sym.FullyConnected(mx.sym.zeros((0, 20)), num_hidden=10, name="fc")
    assert fc.infer_shape_partial()[1] == [(0, 10)]  # still unknown without the output
    arg, out, _ = (fc + mx.sym.var("x")).infer_shape(x=(4, 10))
    assert arg == [(10, 20), (10,), (4, 10)] and out == [(4, 10)]
    unflat = mx.sym.FullyConnected(mx.sym.zeros((0, 3, 20)), num_hidden=10, flatten=False, name="fc")
    arg, out, _ = (unflat + mx.sym.var("x")).infer_shape(x=(4, 3, 10))
    assert arg == [(10, 20), (10,), (4, 3, 10)] and out == [(4, 3, 10)]
    # the begin state runs: zeros of the inferred batch
    exe = (fc + mx.sym.var("x")).simple_bind(mx.cpu(), x=(4, 10))
    exe.arg_dict["fc_weight"][:] = 1
    exe.arg_dict["fc_bias"][:] = 2
    exe.forward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), np.full((4, 10), 2.0) + exe.arg_dict["x"].asnumpy())


def test_convolution_takes_the_batch_from_its_output():
    conv = mx.sym.Convolution(mx.sym.zeros((0, 2, 5, 5)), num_filter=4, kernel=(3, 3), name="c")
    arg, out, _ = (conv + mx.sym.var("x")).infer_shape(x=(7, 4, 3, 3))
    assert arg == [(4, 2, 3, 3), (4,), (7, 4, 3, 3)] and out == [(7, 4, 3, 3)]
    exe = (conv + mx.sym.var("x")).simple_bind(mx.cpu(), x=(7, 4, 3, 3))
    exe.forward()
    assert exe.outputs[0].shape == (7, 4, 3, 3)
