"""mx.rnn, MXNet's legacy symbolic RNN API: cells unrolled against real MXNet 1.9.1's outputs
(data/legacy_rnn_reference.npz, made by data/legacy_rnn_make_reference.py) and a NumPy LSTM;
FusedRNNCell's packed layout (unpack_weights against MXNet, pack/unpack round trip, fused against
unfused); node and parameter names, reset counters, begin_state; modifier cells; the forget-gate
bias initializer through Module; RNN checkpoints; encode_sentences and BucketSentenceIter (the
same batches as MXNet under the same seeds)."""
import os
import random

import numpy as np
import pytest

import symnet as mx

REF = os.path.join(os.path.dirname(__file__), 'data', 'legacy_rnn_reference.npz')
N, T, C, H = 2, 3, 4, 5


@pytest.fixture(scope='module')
def ref():
    with np.load(REF) as f:
        return {k: f[k] for k in f.files}


def case_args(ref, case):
    head = case + '/arg:'
    return {k[len(head):]: v for k, v in ref.items() if k.startswith(head)}


def case_outputs(ref, case):
    names = list(ref[case + '/output_names'])
    return names, [ref['%s/out%d' % (case, i)] for i in range(len(names))]


def evaluate(sym, args):
    return [o.asnumpy() for o in sym.eval(ctx=mx.cpu(), **{k: mx.nd.array(v) for k, v in args.items()})]


def assert_matches(ref, case, sym, auto_named=()):
    """sym's outputs for the case's arguments equal MXNet's, and so do its output names (but
    those of the positions in auto_named, which MXNet numbered by process history)."""
    names, expected = case_outputs(ref, case)
    got_names = sym.list_outputs()
    assert [n for i, n in enumerate(got_names) if i not in auto_named] == \
        [n for i, n in enumerate(names) if i not in auto_named]
    args = case_args(ref, case)
    assert sorted(sym.list_arguments()) == sorted(args)
    for name, got, want in zip(names, evaluate(sym, args), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


# ---- single cells against MXNet ------------------------------------------------------------------

CELLS = {
    'lstm_ntc': (lambda: mx.rnn.LSTMCell(H, prefix='lstm_'), 'NTC'),
    'lstm_tnc': (lambda: mx.rnn.LSTMCell(H, prefix='lstm_'), 'TNC'),
    'gru': (lambda: mx.rnn.GRUCell(H, prefix='gru_'), 'NTC'),
    'rnn_relu': (lambda: mx.rnn.RNNCell(H, activation='relu', prefix='rnn_'), 'NTC'),
}


@pytest.mark.parametrize('case', sorted(CELLS))
def test_cell_unroll_matches_mxnet(ref, case):
    make, layout = CELLS[case]
    cell = make()
    outputs, states = cell.unroll(T, mx.sym.Variable('data'), layout=layout, merge_outputs=True)
    assert_matches(ref, case, mx.sym.Group([outputs] + list(states)), auto_named=(0,))


def test_stack_over_a_tnc_symbol_matches_mxnet(ref):
    # the stack's begin states take their batch from axis 1 of the one TNC input symbol
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(H, prefix='s0_'))
    stack.add(mx.rnn.DropoutCell(0.5, prefix='s_drop_'))
    stack.add(mx.rnn.GRUCell(H, prefix='s1_'))
    outputs, states = stack.unroll(T, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    assert outputs.infer_shape(data=(T, 7, C))[1] == [(T, 7, H)]
    assert_matches(ref, 'stack_tnc', mx.sym.Group([outputs] + states), auto_named=(0,))


def test_conv_lstm_matches_mxnet(ref):
    cell = mx.rnn.ConvLSTMCell((N, 2, 4, 3), num_hidden=3, h2h_kernel=(3, 1), i2h_kernel=(3, 3),
                               i2h_pad=(1, 1), prefix='cl_')
    assert cell.state_shape == [(0, 3, 4, 3)] * 2
    outputs, states = cell.unroll(2, [mx.sym.Variable('x%d' % t) for t in range(2)], merge_outputs=False)
    assert_matches(ref, 'conv_lstm', mx.sym.Group(outputs + states))


def test_lstm_matches_numpy(ref):
    """The MXNet reference itself against an LSTM written out in NumPy (gates i, f, c, o)."""
    a = case_args(ref, 'lstm_ntc')

    def sigmoid(x):
        return 1 / (1 + np.exp(-x))
    x = a['data'].astype(np.float64)
    h = np.zeros((N, H))
    c = np.zeros((N, H))
    steps = []
    for t in range(T):
        g = x[:, t] @ a['lstm_i2h_weight'].T + a['lstm_i2h_bias'] + h @ a['lstm_h2h_weight'].T + a['lstm_h2h_bias']
        i, f, cand, o = np.split(g, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(cand)
        h = sigmoid(o) * np.tanh(c)
        steps.append(h)
    cell = mx.rnn.LSTMCell(H, prefix='lstm_')
    outputs, states = cell.unroll(T, mx.sym.Variable('data'), merge_outputs=True)
    got = evaluate(mx.sym.Group([outputs] + states), a)
    np.testing.assert_allclose(got[0], np.stack(steps, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], c, rtol=1e-5, atol=1e-6)


def test_stack_of_bidirectional_and_residual_matches_mxnet(ref):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(H, prefix='l_'), mx.rnn.LSTMCell(H, prefix='r_'),
                                       output_prefix='bi_'))
    stack.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(2 * H, prefix='res_')))
    outputs, states = stack.unroll(T, [mx.sym.Variable('x%d' % t) for t in range(T)], merge_outputs=False)
    assert isinstance(outputs, list) and len(outputs) == T
    # the stack extends its list by each cell's states: the BidirectionalCell's two lists, as MXNet's
    assert len(states) == 3 and [len(s) for s in states[:2]] == [2, 2] and states[2].name == 'res_t2_out'
    assert_matches(ref, 'stack_bi', mx.sym.Group(outputs))


# ---- FusedRNNCell -------------------------------------------------------------------------------

def fused(mode, **kwargs):
    return mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, bidirectional=True, prefix='f%s_' % mode,
                               **kwargs)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_fused_matches_mxnet(ref, mode):
    cell = fused(mode, get_next_state=True)
    outputs, states = cell.unroll(T, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    assert_matches(ref, 'fused_' + mode, mx.sym.Group([outputs] + list(states)))
    # unpack_weights: MXNet's per-gate names and values
    pname = 'f%s_parameters' % mode
    packed = ref['fused_%s/arg:%s' % (mode, pname)]
    unpacked = cell.unpack_weights({pname: mx.nd.array(packed), 'other': mx.nd.ones((1,))})
    head = 'fused_%s/unpacked:' % mode
    want = {k[len(head):]: v for k, v in ref.items() if k.startswith(head)}
    assert sorted(unpacked) == sorted(want) + ['other']
    for name, value in want.items():
        np.testing.assert_array_equal(unpacked[name].asnumpy(), value, err_msg=name)
    repacked = cell.pack_weights(unpacked)
    assert sorted(repacked) == sorted(['other', pname])
    np.testing.assert_array_equal(repacked[pname].asnumpy(), packed)


@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_tanh', 'rnn_relu'])
def test_unfuse_computes_the_fused_network(mode):
    """unfuse() with the weights moved by unpack_weights (fused) + pack_weights (stack) gives the
    fused cell's outputs: the two agree on the packed layout and on each gate's role."""
    cell = fused(mode)
    data = mx.sym.Variable('data')
    fused_out, _ = cell.unroll(T, data, layout='TNC', merge_outputs=True)
    n = fused_out.infer_shape(data=(T, N, C))[0][1][0]
    rng = np.random.RandomState(5)
    x = rng.uniform(-1, 1, (T, N, C)).astype(np.float32)
    params = rng.uniform(-0.5, 0.5, n).astype(np.float32)
    want = evaluate(fused_out, {'data': x, 'f%s_parameters' % mode: params})[0]

    stack = cell.unfuse()
    stack_out, _ = stack.unroll(T, data, layout='TNC', merge_outputs=True)
    args = stack.pack_weights(cell.unpack_weights({'f%s_parameters' % mode: mx.nd.array(params)}))
    assert sorted(args) == sorted(a for a in stack_out.list_arguments() if a != 'data')
    got = evaluate(stack_out, dict({k: v.asnumpy() for k, v in args.items()}, data=x))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_fused_ntc_layout_and_list_outputs():
    cell = mx.rnn.FusedRNNCell(H, mode='gru', prefix='g_')
    with pytest.warns(UserWarning, match='NTC'):
        outputs, states = cell.unroll(T, mx.sym.Variable('data'), layout='NTC', merge_outputs=False)
    assert states == [] and len(outputs) == T
    assert mx.sym.Group(outputs).infer_shape(data=(N, T, C))[1] == [(N, H)] * T
    with pytest.raises(NotImplementedError):
        cell(mx.sym.Variable('x'), [])


def test_fused_state_info_and_unfuse_structure():
    cell = mx.rnn.FusedRNNCell(H, num_layers=3, mode='lstm', bidirectional=True, dropout=0.5, prefix='t_')
    assert cell.state_info == [{'shape': (6, 0, H), '__layout__': 'LNC'}] * 2
    assert mx.rnn.FusedRNNCell(H, mode='gru').state_shape == [(1, 0, H)]
    assert mx.rnn.FusedRNNCell(H, mode='rnn_tanh')._prefix == 'rnn_tanh_'
    stack = cell.unfuse()
    kinds = [type(c).__name__ for c in stack._cells]
    assert kinds == ['BidirectionalCell', 'DropoutCell', 'BidirectionalCell', 'DropoutCell', 'BidirectionalCell']
    assert stack._cells[1]._prefix == 't__dropout0_'
    outputs, _ = stack.unroll(T, [mx.sym.Variable('x%d' % t) for t in range(T)])
    assert mx.sym.Group(outputs).list_outputs() == ['t_bi_l2_t%d_output' % t for t in range(T)]


# ---- names, counters, states --------------------------------------------------------------------

def test_names_and_reset():
    cell = mx.rnn.LSTMCell(H, prefix='a_')
    assert sorted(cell.params._params) == ['a_h2h_bias', 'a_h2h_weight', 'a_i2h_bias', 'a_i2h_weight']
    states = cell.begin_state()
    assert [s.name for s in states] == ['a_begin_state_0', 'a_begin_state_1']
    assert states[0].attr('__layout__') == 'NC'
    x = mx.sym.Variable('x')
    out1, states = cell(x, states)
    out2, _ = cell(x, states)
    assert (out1.name, out2.name) == ('a_t0_out', 'a_t1_out')  # stepping counts on
    outputs, _ = cell.unroll(2, [x, x])
    assert [o.name for o in outputs] == ['a_t0_out', 'a_t1_out']  # unroll resets first
    internals = mx.sym.Group(outputs).get_internals().list_outputs()
    for name in ('a_t0_i2h_output', 'a_t0_slice_output0', 'a_t0_f_output', 'a_t1_state_output',
                 'a_begin_state_0_output', 'a_begin_state_1_output'):
        assert name in internals
    gru = mx.rnn.GRUCell(H, prefix='g_')
    out, _ = gru(x, gru.begin_state())
    assert out.name == 'g_t0_out'
    assert 'g_t0__i2h_output' in out.get_internals().list_outputs()


def test_begin_state_func_and_kwargs():
    cell = mx.rnn.SequentialRNNCell()
    cell.add(mx.rnn.LSTMCell(H, prefix='l0_'))
    cell.add(mx.rnn.ResidualCell(mx.rnn.RNNCell(H, prefix='l1_')))
    states = cell.begin_state(func=mx.sym.Variable)
    assert [s.name for s in states] == ['l0_begin_state_0', 'l0_begin_state_1', 'l1_begin_state_0']
    assert cell.state_shape == [(0, H)] * 3
    outputs, next_states = cell.unroll(T, mx.sym.Variable('data'), begin_state=states, merge_outputs=True)
    assert 'l0_begin_state_1' in outputs.list_arguments()
    given = {'data': (N, T, H), 'l0_begin_state_0': (N, H), 'l0_begin_state_1': (N, H),
             'l1_begin_state_0': (N, H)}
    assert outputs.infer_shape(**given)[1] == [(N, T, H)]
    assert len(next_states) == 3


def test_shared_params_between_cells():
    params = mx.rnn.RNNParams('shared_')
    a = mx.rnn.RNNCell(H, prefix='a_', params=params)
    b = mx.rnn.RNNCell(H, prefix='b_', params=params)
    x = mx.sym.Variable('x')
    out_a, _ = a.unroll(1, [x])
    out_b, _ = b.unroll(1, out_a)
    args = mx.sym.Group(out_b).list_arguments()
    assert sorted(a for a in args if a.startswith('shared_')) == \
        ['shared_h2h_bias', 'shared_h2h_weight', 'shared_i2h_bias', 'shared_i2h_weight']
    assert out_b[0].name == 'b_t0_out'


def test_modified_cell_refuses_direct_use():
    base = mx.rnn.GRUCell(H, prefix='g_')
    cell = mx.rnn.ZoneoutCell(base, zoneout_outputs=0.3, zoneout_states=0.3)
    with pytest.raises(AssertionError):
        base.begin_state()
    assert [s.name for s in cell.begin_state()] == ['g_begin_state_0']
    assert cell.params is base.params
    with pytest.raises(AssertionError):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(H))
    with pytest.raises(AssertionError):
        mx.rnn.ZoneoutCell(mx.rnn.BidirectionalCell(mx.rnn.GRUCell(H, prefix='l'), mx.rnn.GRUCell(H, prefix='r')))


def test_zoneout_is_the_base_cell_in_inference():
    rng = np.random.RandomState(1)
    cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(H, prefix='z_'), zoneout_outputs=0.5, zoneout_states=0.5)
    plain = mx.rnn.RNNCell(H, prefix='z_')
    x = mx.sym.Variable('data')
    zo, _ = cell.unroll(T, x, merge_outputs=True)
    po, _ = plain.unroll(T, x, merge_outputs=True)
    shapes = dict(zip(po.list_arguments(), po.infer_shape(data=(N, T, C))[0]))
    args = {k: rng.uniform(-1, 1, s).astype(np.float32) for k, s in shapes.items()}
    np.testing.assert_allclose(evaluate(zo, args)[0], evaluate(po, args)[0], rtol=1e-6)
    # in training (states not zoned out, so the base cell's outputs stay the plain ones), each
    # output element is the new one or the previous step's (zeros before the first)
    zo, _ = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(H, prefix='z_'), zoneout_outputs=0.5).unroll(
        T, x, merge_outputs=True)
    exe = zo.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()})
    got = exe.forward(is_train=True)[0].asnumpy()
    new = evaluate(po, args)[0]
    prev = np.concatenate([np.zeros((N, 1, H), np.float32), got[:, :-1]], axis=1)
    is_new, is_prev = np.isclose(got, new, atol=1e-6), np.isclose(got, prev, atol=1e-6)
    assert np.all(is_new | is_prev) and is_new.any() and (is_prev & ~is_new).any()


def test_dropout_cell_on_a_merged_sequence_is_one_node():
    cell = mx.rnn.DropoutCell(0.5)
    out, states = cell.unroll(T, mx.sym.Variable('data'), merge_outputs=True)
    assert states == []
    internals = out.get_internals().list_outputs()
    assert sum(n.startswith('dropout') and n.endswith('_output') for n in internals) == 1
    outs, _ = cell.unroll(T, [mx.sym.Variable('x%d' % t) for t in range(T)], merge_outputs=False)
    assert len(outs) == T
    same, _ = mx.rnn.DropoutCell(0.).unroll(T, mx.sym.Variable('d'), merge_outputs=True)
    assert same.name == 'd'


def test_bidirectional_merged_outputs():
    cell = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(H, prefix='l_'), mx.rnn.GRUCell(H, prefix='r_'),
                                    output_prefix='b_')
    out, states = cell.unroll(T, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    assert out.name == 'b_out'
    assert out.infer_shape(data=(T, N, C))[1] == [(T, N, 2 * H)]
    with pytest.raises(NotImplementedError):
        cell(mx.sym.Variable('x'), [])


def test_unpack_pack_weights_of_a_stepping_cell():
    cell = mx.rnn.LSTMCell(H, prefix='p_')
    rng = np.random.RandomState(2)
    args = {'p_i2h_weight': rng.rand(4 * H, C), 'p_i2h_bias': rng.rand(4 * H),
            'p_h2h_weight': rng.rand(4 * H, H), 'p_h2h_bias': rng.rand(4 * H)}
    nd_args = {k: mx.nd.array(v) for k, v in args.items()}
    unpacked = cell.unpack_weights(nd_args)
    assert sorted(unpacked) == sorted('p_%s_%s_%s' % (g, s, k) for g in ('i2h', 'h2h')
                                      for s in 'ifco' for k in ('weight', 'bias'))
    np.testing.assert_allclose(unpacked['p_i2h_f_weight'].asnumpy(), args['p_i2h_weight'][H:2 * H], rtol=1e-6)
    np.testing.assert_allclose(unpacked['p_h2h_o_bias'].asnumpy(), args['p_h2h_bias'][3 * H:], rtol=1e-6)
    packed = cell.pack_weights(unpacked)
    for k, v in args.items():
        np.testing.assert_allclose(packed[k].asnumpy(), v, rtol=1e-6)
    assert sorted(nd_args) == sorted(args)  # the caller's dict is left alone


# ---- training-side pieces ----------------------------------------------------------------------

def test_lstm_forget_bias_through_module():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(H, forget_bias=2.5, prefix='l0_'))
    stack.add(mx.rnn.LSTMCell(H, prefix='l1_'))
    sym, _ = stack.unroll(1, mx.sym.Variable('data'), merge_outputs=True)
    mod = mx.mod.Module(sym, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[('data', (3, 1, C))], label_shapes=None)
    mod.init_params()
    args = mod.get_params()[0]
    np.testing.assert_array_equal(args['l0_i2h_bias'].asnumpy(), np.repeat([0, 2.5, 0, 0], H))
    np.testing.assert_array_equal(args['l1_i2h_bias'].asnumpy(), np.repeat([0, 1.0, 0, 0], H))
    assert not args['l0_h2h_bias'].asnumpy().any()


def test_rnn_checkpoint_round_trip(tmp_path):
    cell = mx.rnn.FusedRNNCell(H, num_layers=1, mode='gru', prefix='ck_')
    out, _ = cell.unroll(T, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    n = out.infer_shape(data=(T, N, C))[0][1][0]
    packed = mx.nd.array(np.arange(n, dtype=np.float32))
    prefix = str(tmp_path / 'ck')
    callback = mx.rnn.do_rnn_checkpoint(cell, prefix, period=2)
    callback(0, out, {'ck_parameters': packed}, {})
    assert not os.path.exists(prefix + '-0001.params')
    callback(1, out, {'ck_parameters': packed}, {})
    saved = mx.nd.load(prefix + '-0002.params')
    assert 'arg:ck_l0_i2h_r_weight' in saved and 'arg:ck_parameters' not in saved
    sym, args, aux = mx.rnn.load_rnn_checkpoint([cell], prefix, 2)
    assert sym.list_outputs() == out.list_outputs() and aux == {}
    np.testing.assert_array_equal(args['ck_parameters'].asnumpy(), packed.asnumpy())


# ---- data ---------------------------------------------------------------------------------------

def test_encode_sentences():
    coded, vocab = mx.rnn.encode_sentences([['a', 'b'], ['b', 'c', 'a']], invalid_label=1, start_label=0)
    assert vocab == {'\n': 1, 'a': 0, 'b': 2, 'c': 3}  # code 1 is skipped: it is the invalid label
    assert coded == [[0, 2], [2, 3, 0]]
    coded, vocab = mx.rnn.io.encode_sentences([['x', 'q']], vocab={'x': 5}, start_label=7,
                                              unknown_token='<unk>')
    assert coded == [[5, 7]] and vocab == {'x': 5, '<unk>': 7}
    with pytest.raises(AssertionError):
        mx.rnn.encode_sentences([['z']], vocab={'x': 5})


def test_bucket_iter_matches_mxnet(ref):
    lengths = ref['bucket/sentence_lengths']
    flat = list(ref['bucket/sentences'])
    sentences, p = [], 0
    for n in lengths:
        sentences.append(flat[p:p + n])
        p += n
    random.seed(7)
    np.random.seed(7)
    it = mx.rnn.BucketSentenceIter(sentences, 4, buckets=[3, 5, 8], invalid_label=0)
    got = list(it)
    assert [b.bucket_key for b in got] == list(ref['bucket/keys'])
    for i, batch in enumerate(got):
        k = batch.bucket_key
        np.testing.assert_array_equal(batch.data[0].asnumpy(), ref['bucket/data'][i][:, :k])
        np.testing.assert_array_equal(batch.label[0].asnumpy(), ref['bucket/label'][i][:, :k])
        assert batch.provide_data[0].shape == (4, k) and batch.provide_data[0].layout == 'NT'
        assert batch.pad == 0
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert len(list(it)) == len(got)


def test_bucket_iter_layout_buckets_and_discards(capsys):
    sentences = [[1, 2]] * 5 + [[3, 4, 5]] * 3 + [[1] * 9]
    it = mx.rnn.BucketSentenceIter(sentences, 2, invalid_label=-1, layout='TN', data_name='d',
                                   label_name='l', dtype='int32')
    # automatic buckets: the lengths with at least batch_size sentences; the 9-long one is dropped
    assert it.buckets == [2, 3] and it.default_bucket_key == 3
    assert 'discarded 1 sentences' in capsys.readouterr().out
    assert it.provide_data[0].name == 'd' and it.provide_data[0].shape == (3, 2)
    assert it.provide_label[0].name == 'l' and it.provide_label[0].layout == 'TN'
    batches = list(it)
    assert sorted(b.bucket_key for b in batches) == [2, 2, 3]  # partial batches are left out
    for b in batches:
        assert b.data[0].shape == (b.bucket_key, 2) and b.data[0].dtype == np.int32
        label = b.label[0].asnumpy()
        np.testing.assert_array_equal(label[:-1], b.data[0].asnumpy()[1:])
        assert (label[-1] == -1).all()
    with pytest.raises(ValueError):
        mx.rnn.BucketSentenceIter(sentences, 2, layout='TC')


def test_exports():
    for name in ('RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'FusedRNNCell',
                 'SequentialRNNCell', 'BidirectionalCell', 'DropoutCell', 'ModifierCell', 'ZoneoutCell',
                 'ResidualCell', 'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell', 'BaseConvRNNCell',
                 'encode_sentences', 'BucketSentenceIter', 'save_rnn_checkpoint', 'load_rnn_checkpoint',
                 'do_rnn_checkpoint', 'rnn_unroll'):
        assert hasattr(mx.rnn, name), name
    assert mx.rnn.rnn_cell.LSTMCell is mx.rnn.LSTMCell and mx.rnn.io.BucketSentenceIter is mx.rnn.BucketSentenceIter
    assert mx.rnn.rnn.save_rnn_checkpoint is mx.rnn.save_rnn_checkpoint
