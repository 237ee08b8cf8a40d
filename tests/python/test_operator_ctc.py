"""CTCLoss (ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss): a NumPy forward-backward reference
(itself checked against brute-force enumeration of every alignment on tiny cases), float64 finite
differences, the head gradient's scaling, grad_req='add', float16/bfloat16 against float32, both
blank conventions, padding, lengths, labels no alignment fits, MXNet 1.9.1's numbers, names and
JSON, the bad-input errors, and a small network that learns with the loss.

CTC_CASES is also what tests/python/gpu/test_operator_gpu.py compares between the CPU and a GPU."""
import itertools
import json

import numpy as np
import pytest

import symnet as mx
from symnet.test_utils import check_numeric_gradient, check_symbolic_backward, check_symbolic_forward
from test_operator import check_16bit, check_add_req, randn

# (T, N, C, label rows, attributes, data_lengths or None, label_lengths or None)
CTC_CASES = [
    # blank first, padding 0; a repeated label needs a blank between its copies
    (5, 3, 4, [[1, 2, 0], [3, 3, 0], [1, 2, 3]], {}, None, None),
    # blank last (channel 3), padding -1, and label 0 is an ordinary symbol
    (5, 3, 4, [[0, 1, -1], [2, 2, -1], [0, 1, 2]], {"blank_label": "last"}, None, None),
    # padding in the middle ends the label; an all-padding row is the empty label
    (4, 2, 3, [[0, 0, 0], [2, 0, 1]], {}, None, None),
    # sequence lengths: shorter sequences, a fraction (rounds to 3), an empty one with the empty label
    (6, 3, 4, [[1, 2, 0], [3, 1, 0], [0, 0, 0]], {"use_data_lengths": True}, [6, 2.6, 0], None),
    # label lengths: the values past each length are ignored, even padding-like ones
    (5, 2, 5, [[1, 2, 3, 4], [4, 4, 0, 0]], {"use_label_lengths": True}, None, [2, 2]),
    # both lengths, blank last; [2, 2, 2] needs exactly 5 steps (one alignment)
    (6, 2, 4, [[2, 2, 2], [1, 0, -1]], {"use_data_lengths": True, "use_label_lengths": True,
                                        "blank_label": "last"}, [5, 6], [3, 2]),
    # labels no alignment fits: [1, 1, 1] needs 5 steps, 4 are given; loss 0, gradient 0
    (4, 2, 3, [[1, 1, 1], [1, 2, 1]], {}, None, None),
]


def ctc_case_id(case):
    return "T%d_N%d_C%d_%s" % (case[0], case[1], case[2], "_".join("%s=%s" % kv for kv in sorted(case[4].items())))


def ctc_case(T, N, C, labels, kw, data_lengths, label_lengths, seed=0):
    """The symbol and its inputs (activations in float64, exact in 16 bits after rounding)."""
    names = ["data", "label"]
    loc = {"data": np.random.RandomState(seed).normal(size=(T, N, C)) * 1.5,
           "label": np.asarray(labels, dtype=np.float64)}
    if data_lengths is not None:
        names.append("data_lengths")
        loc["data_lengths"] = np.asarray(data_lengths, dtype=np.float64)
    if label_lengths is not None:
        names.append("label_lengths")
        loc["label_lengths"] = np.asarray(label_lengths, dtype=np.float64)
    sym = mx.sym.ctc_loss(*[mx.sym.var(n) for n in names], name="ctc", **kw)
    return sym, loc


def _round(v):
    return int(np.sign(v) * np.floor(abs(v) + 0.5))


def ctc_problems(T, N, C, labels, kw, data_lengths, label_lengths):
    """Per batch element: (sequence length, label list, blank), as MXNet reads them."""
    first = kw.get("blank_label", "first") == "first"
    blank, pad = (0, 0) if first else (C - 1, -1)
    out = []
    for b in range(N):
        row = [_round(v) for v in labels[b]]
        if label_lengths is not None:
            lab = row[:_round(label_lengths[b])]
        else:
            lab = row[:row.index(pad)] if pad in row else row
        tb = T if data_lengths is None else _round(data_lengths[b])
        out.append((tb, lab, blank))
    return out


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def np_ctc(x, lab, blank):
    """Loss and gradient for one sequence x (T, C) in float64, log-space forward-backward. beta
    here includes the emission at its own step (alpha does too), unlike the kernel's."""
    T, C = x.shape
    grad = np.zeros((T, C))
    repeats = sum(a == b for a, b in zip(lab, lab[1:]))
    if len(lab) + repeats > T or T == 0:
        return 0.0, grad  # MXNet's answer when no alignment fits
    ext = [blank]
    for k in lab:
        ext += [k, blank]
    S = len(ext)
    logy = _log_softmax(x)
    e = logy[:, ext]  # (T, S)
    skip = np.array([s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] for s in range(S)])
    alpha = np.full((T, S), -np.inf)
    alpha[0, :min(2, S)] = e[0, :min(2, S)]
    for t in range(1, T):
        prev = alpha[t - 1]
        a = prev.copy()
        a[1:] = np.logaddexp(a[1:], prev[:-1])
        a[2:] = np.where(skip[2:], np.logaddexp(a[2:], prev[:-2]), a[2:])
        alpha[t] = a + e[t]
    beta = np.full((T, S), -np.inf)
    beta[T - 1, max(S - 2, 0):] = e[T - 1, max(S - 2, 0):]
    for t in range(T - 2, -1, -1):
        nxt = beta[t + 1]
        b = nxt.copy()
        b[:-1] = np.logaddexp(b[:-1], nxt[1:])
        b[:-2] = np.where(skip[2:], np.logaddexp(b[:-2], nxt[2:]), b[:-2])
        beta[t] = b + e[t]
    ll = np.logaddexp.reduce(alpha[T - 1, max(S - 2, 0):])
    post = np.exp(alpha + beta - e - ll)  # (T, S): P(position s at step t | label)
    grad = np.exp(logy)
    for s, k in enumerate(ext):
        grad[:, k] -= post[:, s]
    return -ll, grad


def np_ctc_brute(x, lab, blank):
    """-log of the summed probability of every path that collapses to the label."""
    T, C = x.shape
    y = np.exp(_log_softmax(x))
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(lab):
            total += np.prod(y[np.arange(T), path])
    return -np.log(total) if total > 0 else 0.0


def ctc_reference(case, loc):
    T, N, C = case[:3]
    x = loc["data"]
    loss = np.zeros(N)
    grad = np.zeros_like(x)
    for b, (tb, lab, blank) in enumerate(ctc_problems(*case)):
        loss[b], grad[:tb, b] = np_ctc(x[:tb, b], lab, blank)
    return loss, grad


def test_ctc_reference_matches_brute_force_enumeration():
    """The NumPy recursion against every alignment, on tiny problems including repeats, the empty
    label and both blanks."""
    rs = np.random.RandomState(3)
    for T, C, lab, blank in [(4, 3, [1, 2], 0), (4, 3, [1, 1], 0), (5, 3, [2, 2, 2], 0), (3, 3, [], 0),
                             (4, 4, [0, 2, 0], 3), (5, 4, [1, 2, 1], 0), (1, 2, [1], 0), (3, 3, [1, 1], 0)]:
        x = rs.normal(size=(T, C)) * 2
        loss, grad = np_ctc(x, lab, blank)
        np.testing.assert_allclose(loss, np_ctc_brute(x, lab, blank), rtol=1e-12)
        # the gradient of a probability's log: each step's entries sum to zero
        np.testing.assert_allclose(grad.sum(axis=1), 0, atol=1e-12)


@pytest.mark.parametrize("case", CTC_CASES, ids=ctc_case_id)
def test_ctc_loss(case):
    sym, loc = ctc_case(*case)
    T, N, C = case[:3]
    loss, grad = ctc_reference(case, loc)
    for b, (tb, lab, blank) in enumerate(ctc_problems(*case)):
        if C ** tb <= 4096:  # small enough to enumerate every alignment
            np.testing.assert_allclose(loss[b], np_ctc_brute(loc["data"][:tb, b], lab, blank), rtol=1e-10)
    assert sym.infer_shape(**{k: v.shape for k, v in loc.items()})[1] == [(N,)]
    check_symbolic_forward(sym, loc, [loss.astype(np.float32)], rtol=1e-5, atol=1e-5)
    check_symbolic_forward(sym, loc, [loss], rtol=1e-12, atol=1e-12, dtype=np.float64)
    # the head gradient scales each element's gradient
    dy = randn(N)
    check_symbolic_backward(sym, loc, [dy], {"data": grad * dy[None, :, None]}, rtol=1e-10, atol=1e-12,
                            dtype=np.float64)
    check_symbolic_backward(sym, loc, [dy], {"data": grad * dy[None, :, None]}, rtol=1e-4, atol=1e-5)
    check_numeric_gradient(sym, loc, grad_nodes=["data"], rtol=1e-6, atol=1e-8)
    check_add_req(sym, loc, [mx.nd.array(dy, dtype="float64")])
    check_16bit(sym, loc, rtol_f16=3e-3, rtol_bf16=3e-2)
    got = mx.nd.ctc_loss(*[mx.nd.array(loc[n]) for n in sym.list_arguments()], **case[4])
    np.testing.assert_allclose(got.asnumpy(), loss, rtol=1e-5, atol=1e-5)


def test_ctc_16bit_gradients_follow_float32():
    """The gradient (stored by the forward in the data's dtype) in float16 and bfloat16."""
    case = CTC_CASES[0]
    sym, loc = ctc_case(*case)
    _, grad = ctc_reference(case, loc)
    for dtype, tol in (("float16", 2e-3), ("bfloat16", 2e-2)):
        exe = sym.simple_bind(mx.current_context(), type_dict={"data": dtype, "label": "int32"}, data=loc["data"].shape,
                              label=loc["label"].shape, grad_req={"data": "write", "label": "null"})
        exe.arg_dict["data"][:] = loc["data"]
        exe.arg_dict["label"][:] = loc["label"]
        exe.forward(is_train=True)
        exe.backward([mx.nd.ones((case[1],), dtype=dtype)])
        exact = ctc_reference(case, {"data": exe.arg_dict["data"].asnumpy().astype(np.float64)})[1]
        np.testing.assert_allclose(exe.grad_dict["data"].asnumpy().astype(np.float64), exact, atol=tol)
        assert np.abs(exact - grad).max() < 0.05


def test_ctc_matches_mxnet_1_9_1_numbers():
    """Values MXNet 1.9.1 gives for these inputs (its CPU build): both blanks, the head gradient
    scaling, and a label no alignment fits (loss 0, gradient 0)."""
    x = np.random.RandomState(0).randn(4, 2, 5).astype(np.float32)
    d = mx.nd.array(x)
    got = mx.nd.ctc_loss(d, mx.nd.array([[1, 2, 0], [3, 3, 0]])).asnumpy()
    np.testing.assert_allclose(got, [4.4929156, 6.183989], rtol=1e-5)
    got = mx.nd.ctc_loss(d, mx.nd.array([[0, 1, -1], [2, 2, -1]]), blank_label="last").asnumpy()
    np.testing.assert_allclose(got, [3.057546, 5.0661035], rtol=1e-5)
    got = mx.nd.ctc_loss(d, mx.nd.array([[1, 2, 0.6], [3, 0, 3]])).asnumpy()  # 0.6 reads as 1
    np.testing.assert_allclose(got, [4.6567173, 5.5909514], rtol=1e-5)
    got = mx.nd.ctc_loss(d, mx.nd.array([[1, 2, 0], [3, 3, 0]]), mx.nd.array([2.7, 3]),
                         use_data_lengths=True).asnumpy()  # 2.7 reads as 3
    np.testing.assert_allclose(got, [3.7986798, 4.607407], rtol=1e-5)
    exe = mx.sym.ctc_loss(mx.sym.var("d"), mx.sym.var("l")).simple_bind(
        mx.current_context(), d=(4, 2, 5), l=(2, 3), grad_req={"d": "write", "l": "null"})
    exe.arg_dict["d"][:] = x
    exe.arg_dict["l"][:] = [[1, 1, 1], [1, 2, 3]]
    loss = exe.forward(is_train=True)[0]
    exe.backward([mx.nd.array([1.0, 2.0])])
    np.testing.assert_allclose(loss.asnumpy(), [0.0, 5.2370644], rtol=1e-5)
    g = exe.grad_dict["d"].asnumpy()
    assert np.all(g[:, 0] == 0)
    np.testing.assert_allclose(g[:, 1, 0], 2 * np.array([0.02785381, 0.09497643, 0.00955292, -0.26793408]),
                               rtol=1e-4)


def test_ctc_a_label_equal_to_the_blank_is_a_symbol_as_in_mxnet():
    """MXNet 1.9.1 (warp-ctc) takes a label value equal to the blank as a symbol emitted by the
    blank channel; its forward pass lets no skip land on such a label, its backward pass lets
    none leave one. Its numbers, losses and gradients summed over time."""
    x = mx.nd.array(np.random.RandomState(0).randn(6, 2, 5).astype(np.float32))
    cases = [
        ([[4, 2], [3, 1]], {"blank_label": "last"}, [6.2488556, 6.2593265],
         [[0.7945187, 1.403353, -0.5112016, 1.4600564, -1.6114641],
          [0.8246648, -0.1113751, 1.4554032, -0.8303375, -1.3383551]]),
        ([[4, 4], [1, 4]], {"blank_label": "last"}, [5.81708, 6.009692],
         [[0.7945187, 1.403353, 0.7619689, 1.4600564, -4.419895],
          [0.8246648, -2.4681993, 1.4554032, 0.9475212, -3.4673023]]),
        ([[1, 2], [0, 1]], {"use_label_lengths": True}, [8.207251, 8.213739],
         [[-1.4014844, -0.976965, -0.6617101, 1.4600564, 1.5801032],
          [-1.409127, -0.8432341, 1.4554032, 0.9475212, 1.0941715]]),
    ]
    for labels, kw, loss, grad in cases:
        d = x.copy()
        d.attach_grad()
        args = [d, mx.nd.array(labels)] + ([mx.nd.array([2, 2])] if "use_label_lengths" in kw else [])
        with mx.autograd.record():
            got = mx.nd.ctc_loss(*args, **kw)
        got.backward()
        np.testing.assert_allclose(got.asnumpy(), loss, rtol=1e-5)
        np.testing.assert_allclose(d.grad.asnumpy().sum(axis=0), grad, rtol=1e-4, atol=1e-5)
    # MXNet's own test_ctc_loss: Gluon's blank is the last channel, and a label holds it
    got = mx.gluon.loss.CTCLoss()(mx.nd.ones((2, 25, 4)), mx.nd.array([[2, 1, 3, 3], [3, 2, 2, 3]]),
                                  mx.nd.array([20, 20]), mx.nd.array([2, 3]))
    np.testing.assert_allclose(got.asnumpy(), [18.82820702, 16.50581741], rtol=1e-5)


def test_ctc_names_outputs_and_json():
    """MXNet's names: CTCLoss with three aliases (two in contrib), one visible output (the gradient
    stays hidden), inputs by use_* flags, dtypes free for labels and lengths."""
    d, lab = mx.sym.var("d"), mx.sym.var("l")
    for f in (mx.sym.ctc_loss, mx.sym.CTCLoss, mx.sym.contrib.ctc_loss, mx.sym.contrib.CTCLoss,
              mx.sym._contrib_ctc_loss, mx.sym._contrib_CTCLoss):
        s = f(d, lab, name="c")
        assert s.list_outputs() == ["c_output0"]
        assert json.loads(s.tojson())["nodes"][-1]["op"] == "CTCLoss"
    assert mx.sym.ctc_loss(d, lab).name.startswith("ctc_loss")
    assert mx.sym.contrib.CTCLoss(d, lab).name.startswith("ctcloss")
    s = mx.sym.ctc_loss(d, lab, mx.sym.var("ll"), use_label_lengths=True, blank_label="last", name="c")
    assert s.list_arguments() == ["d", "l", "ll"]
    node = json.loads(s.tojson())["nodes"][-1]
    assert node["attrs"] == {"use_label_lengths": "True", "blank_label": "last"}
    assert mx.sym.load_json(s.tojson()).tojson() == s.tojson()
    assert mx.sym.ctc_loss(name="c", use_data_lengths=True).list_arguments() == ["c_data", "c_label",
                                                                                 "c_data_lengths"]
    assert s.infer_shape(d=(6, 2, 5), l=(2, 3))[0] == [(6, 2, 5), (2, 3), (2,)]
    assert s.infer_type(d="float16", l="int32", ll="int64")[0:2] == ([np.float16, np.int32, np.int64],
                                                                    [np.float16])
    # MXNet 1.9.1's own JSON loads
    mxnet_json = {"nodes": [{"op": "null", "name": "d", "inputs": []}, {"op": "null", "name": "l", "inputs": []},
                            {"op": "CTCLoss", "name": "c", "attrs": {"blank_label": "last"},
                             "inputs": [[0, 0, 0], [1, 0, 0]]}],
                  "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 4], "heads": [[2, 0, 0]],
                  "attrs": {"mxnet_version": ["int", 10901]}}
    loaded = mx.sym.load_json(json.dumps(mxnet_json))
    assert loaded.list_outputs() == ["c_output0"]
    assert loaded.infer_shape(d=(4, 3, 6), l=(3, 2))[1] == [(3,)]


def test_ctc_labels_and_lengths_of_any_dtype():
    x = np.random.RandomState(2).normal(size=(5, 2, 4))
    ref = mx.nd.ctc_loss(mx.nd.array(x), mx.nd.array([[1, 3, 0], [2, 0, 0]])).asnumpy()
    for dtype in ["int32", "int64", "uint8", "float16", "float64"]:
        got = mx.nd.ctc_loss(mx.nd.array(x), mx.nd.array([[1, 3, 0], [2, 0, 0]], dtype=dtype))
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-6)
        got = mx.nd.ctc_loss(mx.nd.array(x), mx.nd.array([[1, 3, 2], [2, 1, 1]], dtype="int32"),
                             mx.nd.array([5, 5], dtype=dtype), mx.nd.array([2, 1], dtype=dtype),
                             use_data_lengths=True, use_label_lengths=True)
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-6)


def test_ctc_bad_input():
    d, lab = mx.sym.var("d"), mx.sym.var("l")
    s = mx.sym.ctc_loss(d, lab, name="myctc")
    with pytest.raises(mx.MXNetError, match=r"myctc.*\(sequence_length, batch_size, alphabet_size\)"):
        s.infer_shape(d=(4, 2), l=(2, 3))
    with pytest.raises(mx.MXNetError, match=r"myctc.*label of shape \(batch_size"):
        s.infer_shape(d=(4, 2, 5), l=(2,))
    with pytest.raises(mx.MXNetError, match="myctc.*batch size 2 but label"):
        s.infer_shape(d=(4, 2, 5), l=(3, 3))
    with pytest.raises(mx.MXNetError, match="myctc.*label width 5.*exceeds the sequence length 4"):
        s.infer_shape(d=(4, 2, 5), l=(2, 5))
    with pytest.raises(mx.MXNetError, match="myctc.*empty alphabet"):
        s.infer_shape(d=(4, 2, 0), l=(2, 3))
    with pytest.raises(mx.MXNetError, match="floating-point"):
        s.infer_type(d="int32", l="int32")
    sl = mx.sym.ctc_loss(d, lab, mx.sym.var("n"), use_data_lengths=True, name="withlen")
    with pytest.raises(mx.MXNetError, match="withlen"):
        sl.infer_shape(d=(4, 2, 5), l=(2, 3), n=(3,))
    with pytest.raises(mx.MXNetError, match="blank_label"):
        mx.sym.ctc_loss(d, lab, blank_label="middle")
    x = mx.nd.array(np.zeros((4, 2, 5)))
    with pytest.raises(mx.MXNetError, match=r"batch element 1: a label value lies outside the alphabet.*\[1, 4\]"):
        mx.nd.ctc_loss(x, mx.nd.array([[1, 2], [3, 5]]))
    with pytest.raises(mx.MXNetError, match=r"batch element 0: a label value lies outside.*\[0, 3\]"):
        mx.nd.ctc_loss(x, mx.nd.array([[-2, 2], [3, 1]]), blank_label="last")
    with pytest.raises(mx.MXNetError, match=r"batch element 1: label_lengths must lie in \[0, 2\]"):
        mx.nd.ctc_loss(x, mx.nd.array([[1, 2], [3, 1]]), mx.nd.array([2, 3]), use_label_lengths=True)
    with pytest.raises(mx.MXNetError, match=r"batch element 0: data_lengths must lie in \[0, 4\]"):
        mx.nd.ctc_loss(x, mx.nd.array([[1, 2], [3, 1]]), mx.nd.array([5, 3]), use_data_lengths=True)
    with pytest.raises(mx.MXNetError, match=r"data_lengths must lie"):
        mx.nd.ctc_loss(x, mx.nd.array([[1, 2], [3, 1]]), mx.nd.array([np.nan, 3]), use_data_lengths=True)


def _ctc_task(rs, n, T=8, F=6, C=4):
    """Sequences of T frames whose features name a symbol (1..C-1) or a gap; the label is the
    symbols in order (a symbol held for two frames counts once)."""
    x = np.zeros((n, T, F))
    labels = np.zeros((n, 3))
    for i in range(n):
        syms = rs.randint(1, C, size=rs.randint(1, 4))
        t = 0
        for j, k in enumerate(syms):
            x[i, t:t + 2, k] = 1.0
            labels[i, j] = k
            t += 3
        x[i] += rs.normal(scale=0.1, size=(T, F))
    return x, labels


def test_a_small_network_learns_with_ctc():
    """FullyConnected over every frame, trained through Module with make_loss(ctc_loss): the mean
    loss falls well below where it starts."""
    rs = np.random.RandomState(0)
    x, labels = _ctc_task(rs, 64)
    data, label = mx.sym.var("data"), mx.sym.var("label")
    frames = mx.sym.transpose(data, axes=(1, 0, 2))  # (T, N, F)
    act = mx.sym.FullyConnected(frames, num_hidden=4, flatten=False, name="fc")
    net = mx.sym.MakeLoss(mx.sym.ctc_loss(act, label, name="ctc"))
    it = mx.io.NDArrayIter(x, labels, batch_size=16, label_name="label")
    mod = mx.mod.Module(net, data_names=["data"], label_names=["label"], context=mx.cpu())
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.05, "momentum": 0.9})
    losses = []
    for _ in range(10):
        it.reset()
        total = 0.0
        for batch in it:
            mod.forward(batch, is_train=True)
            total += mod.get_outputs()[0].asnumpy().mean()
            mod.backward()
            mod.update()
        losses.append(total / 4)
    assert losses[-1] < 0.3 * losses[0], losses
