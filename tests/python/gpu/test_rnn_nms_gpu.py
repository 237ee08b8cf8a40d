"""The fused RNN op through cuDNN and the parallel box_nms on a GPU, against the CPU.

RNN: every mode, 1 and 2 layers, uni- and bidirectional, with state outputs; forward outputs
(y, hy, cy) and the gradients of data, parameters, state and state_cell, in float32 and float16
against the CPU in float64. Tolerances: float32 1e-4 (cuDNN runs float32 without TF32, so the
difference is summation order only); float16 3e-2 relative and absolute (inputs, weights and
every stored activation rounded to 10 bits, accumulated in float32, through up to 2 x 6 steps).
Also: cuDNN against the cuBLAS step loop (SYMNET_CUDNN_RNN=0) on the GPU, gradient accumulation
(grad_req='add'), inference, and dropout between layers (p > 0).

box_nms: bit-exact equality with the CPU kernel (outputs, and the gradient, which scatters by
the kept rows' record) for many boxes per item (several 64-box tiles and 256-box rank blocks),
tied scores, class ids with and without force_suppress, a background class, topk below, at and
above the box count and 0, center and corner formats in and out, another row layout, and
float64, float32 and float16. Coordinates lie on a 1/32 grid so that every IoU is computed
exactly on both devices (no rounding can fall differently for fused multiply-adds).

Without a GPU every test here is skipped (conftest.py); SYMNET_GPU_TESTS_ON_CPU=1 runs them with
the CPU standing in for the GPU, which checks the tests themselves.
"""
import numpy as np
import pytest

import symnet as mx
from gpu_device import DEVICE as GPU
from symnet.test_utils import assert_almost_equal
from test_operator_detection import np_box_nms, nms_sym
from test_operator_rnn import rnn_case

MODES = ["rnn_relu", "rnn_tanh", "lstm", "gru"]
# (num_layers, bidirectional)
LAYOUTS = [(1, False), (2, False), (2, True)]
SHAPE, STATE = (6, 4, 5), 8  # (T, N, C), state_size
RNN_TOL = {"float32": 1e-4, "float16": 3e-2}


def run(sym, loc, ctx, dtype, heads=None, is_train=True, grad_req="write", grad_init=None):
    """Binds sym on ctx in dtype, sets the inputs, runs forward and (with heads) backward:
    (outputs, gradients) as float64 NumPy arrays."""
    exe = sym.simple_bind(ctx, grad_req=grad_req, type_dict={k: dtype for k in loc},
                          **{k: v.shape for k, v in loc.items()})
    for k, v in loc.items():
        exe.arg_dict[k][:] = np.asarray(v, dtype=np.float64)
    if grad_init is not None:
        for k, v in grad_init.items():
            exe.grad_dict[k][:] = np.asarray(v, dtype=np.float64)
    exe.forward(is_train=is_train)
    outs = [o.asnumpy().astype(np.float64) for o in exe.outputs]
    grads = None
    if heads is not None:
        exe.backward([mx.nd.array(h, ctx=ctx, dtype=dtype) for h in heads])
        grads = {k: g.asnumpy().astype(np.float64) for k, g in exe.grad_dict.items()}
    return outs, grads


def rnn_inputs(mode, layers, bidirectional, seed=0, **kw):
    sym, loc = rnn_case(mode, layers, bidirectional, SHAPE, STATE, seed=seed, **kw)
    rng = np.random.RandomState(seed + 1)
    shapes = sym.infer_shape(**{k: v.shape for k, v in loc.items()})[1]
    heads = [rng.uniform(-1, 1, s) for s in shapes]
    return sym, loc, heads


def compare(got, ref, tol, what):
    outs, grads = got
    routs, rgrads = ref
    assert len(outs) == len(routs)
    for k, (a, b) in enumerate(zip(outs, routs)):
        assert_almost_equal(a, b, rtol=tol, atol=tol, names=("output %d (%s)" % (k, what), "reference"))
    for name in rgrads:
        assert_almost_equal(grads[name], rgrads[name], rtol=tol, atol=tol,
                            names=("gradient of %s (%s)" % (name, what), "reference"))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("layers,bidirectional", LAYOUTS)
@pytest.mark.parametrize("mode", MODES)
def test_cudnn_rnn_matches_cpu(mode, layers, bidirectional, dtype):
    sym, loc, heads = rnn_inputs(mode, layers, bidirectional)
    ref = run(sym, loc, mx.cpu(), "float64", heads)
    got = run(sym, loc, GPU, dtype, heads)
    compare(got, ref, RNN_TOL[dtype], "%s %d layers%s, %s on %s" % (
        mode, layers, " bidirectional" if bidirectional else "", dtype, GPU))


@pytest.mark.parametrize("mode", MODES)
def test_cudnn_rnn_matches_the_cublas_step_loop(mode, monkeypatch):
    """The two GPU paths side by side: SYMNET_CUDNN_RNN=0 keeps the cuBLAS GEMMs and step
    kernels (read at every call, so each binding below runs the path it was made under)."""
    sym, loc, heads = rnn_inputs(mode, 2, True, seed=3)
    monkeypatch.setenv("SYMNET_CUDNN_RNN", "0")
    loop = run(sym, loc, GPU, "float32", heads)
    monkeypatch.setenv("SYMNET_CUDNN_RNN", "1")
    cudnn = run(sym, loc, GPU, "float32", heads)
    compare(cudnn, loop, 1e-4, "cuDNN vs the cuBLAS step loop, %s" % mode)


@pytest.mark.parametrize("mode", MODES)
def test_cudnn_rnn_accumulates_gradients(mode):
    """grad_req='add': every gradient (parameters included, which cuDNN accumulates in its own
    weight layout) lands on top of what the buffers held."""
    sym, loc, heads = rnn_inputs(mode, 2, True, seed=5)
    rng = np.random.RandomState(9)
    init = {k: rng.uniform(-1, 1, v.shape) for k, v in loc.items()}
    ref = run(sym, loc, mx.cpu(), "float64", heads)
    got = run(sym, loc, GPU, "float32", heads, grad_req="add", grad_init=init)
    for k in init:
        assert_almost_equal(got[1][k], ref[1][k] + init[k], rtol=1e-4, atol=1e-4,
                            names=("accumulated gradient of %s" % k, "reference"))


@pytest.mark.parametrize("mode", MODES)
def test_cudnn_rnn_inference_matches_cpu(mode):
    sym, loc, _ = rnn_inputs(mode, 2, True, seed=7)
    ref, _ = run(sym, loc, mx.cpu(), "float64", is_train=False)
    got, _ = run(sym, loc, GPU, "float32", is_train=False)
    for k, (a, b) in enumerate(zip(got, ref)):
        assert_almost_equal(a, b, rtol=1e-4, atol=1e-4, names=("inference output %d" % k, "reference"))


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_cudnn_rnn_dropout_between_layers(mode):
    """p > 0: inference ignores it (equal to the CPU); training drops (differs from inference),
    runs its backward, and repeats itself after the same seed in a fresh binding."""
    sym, loc, heads = rnn_inputs(mode, 3, True, seed=11, p=0.5)
    infer, _ = run(sym, loc, GPU, "float32", is_train=False)
    ref, _ = run(sym, loc, mx.cpu(), "float64", is_train=False)
    for k, (a, b) in enumerate(zip(infer, ref)):
        assert_almost_equal(a, b, rtol=1e-4, atol=1e-4, names=("inference output %d" % k, "reference"))
    mx.random.seed(42)
    first = run(sym, loc, GPU, "float32", heads)
    mx.random.seed(42)
    again = run(sym, loc, GPU, "float32", heads)
    assert not np.allclose(first[0][0], infer[0], rtol=1e-3, atol=1e-3), "dropout changed nothing"
    # the first layer's output is not dropped inside the layer: its final states are those of
    # inference
    assert_almost_equal(first[0][1][:2], infer[1][:2], rtol=1e-4, atol=1e-4,
                        names=("first layer's final states in training", "in inference"))
    for a, b in zip(first[0], again[0]):
        np.testing.assert_array_equal(a, b)
    for k in first[1]:
        assert np.all(np.isfinite(first[1][k])), k
        np.testing.assert_array_equal(first[1][k], again[1][k])


# ---- box_nms -----------------------------------------------------------------------------------

def nms_boxes(batch, n, classes=3, levels=6, seed=0, fmt="corner"):
    """Rows (class id, score, 4 coordinates) on a 1/32 grid; scores from `levels` values, so
    many tie; about one box in eight invalid (score 0)."""
    rng = np.random.RandomState(seed)
    ids = rng.randint(0, classes, (batch, n, 1)).astype(np.float64)
    scores = rng.randint(0, levels, (batch, n, 1)) / float(levels)
    scores[rng.uniform(size=scores.shape) < 0.125] = 0
    lo = rng.randint(0, 48, (batch, n, 2)) / 32.0
    size = rng.randint(1, 24, (batch, n, 2)) / 32.0
    if fmt == "corner":
        coords = np.concatenate([lo, lo + size], axis=2)
    else:
        coords = np.concatenate([lo + size / 2, size], axis=2)
    return np.concatenate([ids, scores, coords], axis=2)


NMS_GPU_CASES = [
    (dict(batch=2, n=700), dict(overlap_thresh=0.3)),
    (dict(batch=2, n=700), dict(overlap_thresh=0.3, id_index=0)),
    (dict(batch=2, n=700), dict(overlap_thresh=0.3, id_index=0, force_suppress=True)),
    (dict(batch=2, n=700), dict(overlap_thresh=0.2, id_index=0, background_id=1, valid_thresh=0.2)),
    (dict(batch=3, n=300), dict(overlap_thresh=0.5, topk=50)),
    (dict(batch=3, n=300), dict(overlap_thresh=0.5, topk=64, id_index=0)),
    (dict(batch=3, n=300), dict(overlap_thresh=0.5, topk=65, force_suppress=True, id_index=0)),
    (dict(batch=3, n=300), dict(overlap_thresh=0.5, topk=1000)),
    (dict(batch=3, n=300), dict(overlap_thresh=0.5, topk=0)),
    (dict(batch=2, n=257), dict(overlap_thresh=0.4, out_format="center")),
    (dict(batch=2, n=257, fmt="center"), dict(overlap_thresh=0.4, in_format="center", id_index=0)),
    (dict(batch=2, n=257, fmt="center"), dict(overlap_thresh=0.4, in_format="center",
                                              out_format="center")),
    (dict(batch=1, n=1), dict(overlap_thresh=0.5)),
    (dict(batch=4, n=63), dict(overlap_thresh=0.0, id_index=0)),
]


def nms_case(i):
    shape, kw = NMS_GPU_CASES[i]
    return nms_boxes(**shape), kw


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("case", range(len(NMS_GPU_CASES)))
def test_box_nms_gpu_equals_cpu_bit_for_bit(case, dtype):
    data, kw = nms_case(case)
    sym = nms_sym(kw)
    heads = [np.random.RandomState(case).uniform(-1, 1, data.shape)]
    cpu = run(sym, {"data": data}, mx.cpu(), dtype, heads)
    gpu = run(sym, {"data": data}, GPU, dtype, heads)
    np.testing.assert_array_equal(gpu[0][0], cpu[0][0])
    # the gradient scatters by the record: equal gradients mean equal kept rows
    np.testing.assert_array_equal(gpu[1]["data"], cpu[1]["data"])
    if dtype == "float64":
        ref, _ = np_box_nms(data, **kw)  # its own order of operations: equal to rounding
        np.testing.assert_allclose(gpu[0][0], ref, rtol=1e-12, atol=1e-12)


def test_box_nms_gpu_other_row_layout_and_batch_dims():
    """score first, coordinates from 2, class id last; a (2, 3, n, width) batch."""
    data = nms_boxes(6, 200, seed=4)[:, :, [1, 2, 3, 4, 5, 0]].reshape(2, 3, 200, 6)
    kw = dict(overlap_thresh=0.35, score_index=0, coord_start=1, id_index=5, topk=120)
    cpu = run(nms_sym(kw), {"data": data}, mx.cpu(), "float32")
    gpu = run(nms_sym(kw), {"data": data}, GPU, "float32")
    np.testing.assert_array_equal(gpu[0][0], cpu[0][0])
