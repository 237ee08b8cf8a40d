"""Writes legacy_rnn_reference.npz, the values of real MXNet 1.9.1's mx.rnn that
test_legacy_rnn.py compares symnet with. Run in this folder with MXNet's interpreter:

    ../../../build/mxnet-venv/bin/python legacy_rnn_make_reference.py

Every case stores its inputs and parameters (seeded numpy draws) next to MXNet's outputs under
'<case>/<name>' keys, so the test needs only the file. Cases:
  lstm_ntc, lstm_tnc, gru, rnn_relu: a cell unrolled 3 steps (merged outputs, final states);
  stack_tnc: SequentialRNNCell of LSTM, DropoutCell and GRU over one TNC symbol (inference);
  conv_lstm: ConvLSTMCell unrolled 2 steps (list outputs, final states);
  stack_bi: SequentialRNNCell of a BidirectionalCell of LSTMs and a ResidualCell GRU, list outputs;
  fused_lstm, fused_gru: FusedRNNCell (2 layers, bidirectional, final states) over a packed vector,
    and the per-gate arrays of its unpack_weights;
  bucket: the batches of one BucketSentenceIter epoch after random.seed / np.random.seed.
"""
import random

import mxnet as mx
import numpy as np

N, T, C, H = 2, 3, 4, 5
out = {}


def draw(rng, shape):
    return rng.uniform(-0.5, 0.5, size=shape).astype(np.float32)


def run(case, sym, args, extra=None):
    """Evaluates sym with args (numpy) and stores args and outputs under case/."""
    vals = sym.eval(ctx=mx.cpu(), **{k: mx.nd.array(v) for k, v in args.items()})
    for k, v in args.items():
        out['%s/arg:%s' % (case, k)] = v
    # by position: automatic node names (concat0) depend on what the process made before
    out['%s/output_names' % case] = np.array(sym.list_outputs())
    for i, v in enumerate(vals):
        out['%s/out%d' % (case, i)] = v.asnumpy()
    for k, v in (extra or {}).items():
        out['%s/%s' % (case, k)] = v


def cell_case(case, cell, layout, rng):
    data = mx.sym.Variable('data')
    outputs, states = cell.unroll(T, data, layout=layout, merge_outputs=True)
    sym = mx.sym.Group([outputs] + list(states))
    shapes = {'data': (N, T, C) if layout == 'NTC' else (T, N, C)}
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    args = {name: draw(rng, shape) for name, shape in zip(sym.list_arguments(), arg_shapes)}
    run(case, sym, args)


def main():
    rng = np.random.RandomState(38)
    cell_case('lstm_ntc', mx.rnn.LSTMCell(H, prefix='lstm_'), 'NTC', rng)
    cell_case('lstm_tnc', mx.rnn.LSTMCell(H, prefix='lstm_'), 'TNC', rng)
    cell_case('gru', mx.rnn.GRUCell(H, prefix='gru_'), 'NTC', rng)
    cell_case('rnn_relu', mx.rnn.RNNCell(H, activation='relu', prefix='rnn_'), 'NTC', rng)

    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(H, prefix='s0_'))
    stack.add(mx.rnn.DropoutCell(0.5, prefix='s_drop_'))
    stack.add(mx.rnn.GRUCell(H, prefix='s1_'))
    cell_case('stack_tnc', stack, 'TNC', rng)
    conv = mx.rnn.ConvLSTMCell((N, 2, 4, 3), num_hidden=3, h2h_kernel=(3, 1), i2h_kernel=(3, 3),
                               i2h_pad=(1, 1), prefix='cl_')
    steps = [mx.sym.Variable('x%d' % t) for t in range(2)]
    outputs, states = conv.unroll(2, steps, merge_outputs=False)
    sym = mx.sym.Group(outputs + list(states))
    arg_shapes, _, _ = sym.infer_shape(**{'x%d' % t: (N, 2, 4, 3) for t in range(2)})
    run('conv_lstm', sym, {n: draw(rng, s) for n, s in zip(sym.list_arguments(), arg_shapes)})

    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(H, prefix='l_'), mx.rnn.LSTMCell(H, prefix='r_'),
                                       output_prefix='bi_'))
    stack.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(2 * H, prefix='res_')))
    steps = [mx.sym.Variable('x%d' % t) for t in range(T)]
    outputs, _ = stack.unroll(T, steps, merge_outputs=False)
    sym = mx.sym.Group(outputs)
    arg_shapes, _, _ = sym.infer_shape(**{'x%d' % t: (N, C) for t in range(T)})
    run('stack_bi', sym, {n: draw(rng, s) for n, s in zip(sym.list_arguments(), arg_shapes)})

    for mode in ('lstm', 'gru'):
        cell = mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, bidirectional=True, get_next_state=True,
                                   prefix='f%s_' % mode)
        data = mx.sym.Variable('data')
        outputs, states = cell.unroll(T, data, layout='TNC', merge_outputs=True)
        sym = mx.sym.Group([outputs] + list(states))
        arg_shapes, _, _ = sym.infer_shape(data=(T, N, C))
        args = {n: draw(rng, s) for n, s in zip(sym.list_arguments(), arg_shapes)}
        pname = 'f%s_parameters' % mode
        unpacked = cell.unpack_weights({pname: mx.nd.array(args[pname])})
        run('fused_' + mode, sym, args, {'unpacked:' + k: v.asnumpy() for k, v in unpacked.items()})

    random.seed(7)
    np.random.seed(7)
    sent_rng = np.random.RandomState(3)
    sentences = [list(sent_rng.randint(1, 20, size=sent_rng.randint(2, 9))) for _ in range(40)]
    it = mx.rnn.BucketSentenceIter(sentences, 4, buckets=[3, 5, 8], invalid_label=0)
    keys, datas, labels = [], [], []
    for batch in it:
        keys.append(batch.bucket_key)
        datas.append(np.pad(batch.data[0].asnumpy(), ((0, 0), (0, 8 - batch.bucket_key))))
        labels.append(np.pad(batch.label[0].asnumpy(), ((0, 0), (0, 8 - batch.bucket_key))))
    out['bucket/sentence_lengths'] = np.array([len(s) for s in sentences])
    out['bucket/sentences'] = np.concatenate([np.array(s) for s in sentences])
    out['bucket/keys'] = np.array(keys)
    out['bucket/data'] = np.stack(datas)
    out['bucket/label'] = np.stack(labels)

    np.savez_compressed('legacy_rnn_reference.npz', **out)


if __name__ == '__main__':
    main()
