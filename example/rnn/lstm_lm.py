#!/usr/bin/env python3
"""A word-level LSTM language model, written as an MXNet 1.x symbol/Module script (Embedding, the
fused RNN op, FullyConnected, SoftmaxOutput) that runs unchanged on symnet: only the import
differs (`import symnet as mx`; with `--mxnet` the same file runs on MXNet 1.9.1).

The text is offline: the help topics that CPython ships in its standard library
(`pydoc_data/topics.py`; Debian package libpython3.X-stdlib; licence PSF-2.0), about 120k word
and punctuation tokens of English prose about Python. The first 90% trains, the last 10% is held
out. Each batch is `batch_size` independent windows of `bptt` tokens (states start at zero).

    python3 example/rnn/lstm_lm.py [--num-epochs 2] [--mxnet]
    python3 example/rnn/lstm_lm.py --benchmark 20      # ms per training step (forward, backward, update)
    python3 example/rnn/lstm_lm.py --benchmark 20 --amp bfloat16 [--amp-rnn] [--layers 2 --dropout 0.2]
"""
import argparse
import collections
import logging
import math
import re
import time

import numpy as np


def load_corpus(min_count=3):
    """(train ids, held-out ids, vocabulary): rare words become <unk>."""
    import pydoc_data.topics
    text = "\n".join(pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics))
    tokens = re.findall(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]", text.lower())
    split = int(len(tokens) * 0.9)
    counts = collections.Counter(tokens[:split])
    vocab = ["<unk>"] + sorted(w for w, c in counts.items() if c >= min_count)
    index = {w: i for i, w in enumerate(vocab)}
    ids = np.array([index.get(w, 0) for w in tokens], dtype=np.int64)
    return ids[:split], ids[split:], vocab


def windows(ids, bptt):
    """Inputs and next-token labels, (num_windows, bptt) each."""
    n = (len(ids) - 1) // bptt
    return (ids[:n * bptt].reshape(n, bptt).astype(np.float32),
            ids[1:n * bptt + 1].reshape(n, bptt).astype(np.float32))


def unigram_perplexity(train, held_out, vocab_size):
    """The baseline: every token predicted by its training frequency (add-one smoothed)."""
    freq = np.bincount(train, minlength=vocab_size) + 1.0
    logp = np.log(freq / freq.sum())
    return math.exp(-logp[held_out].mean())


def lstm_lm(mx, vocab_size, batch_size, embed=128, hidden=256, layers=1, dropout=0.0):
    """data and softmax_label: (batch, bptt) token ids; the RNN runs time-major (TNC)."""
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("softmax_label")
    x = mx.sym.Embedding(mx.sym.transpose(data), input_dim=vocab_size, output_dim=embed, name="embed")
    params = mx.sym.Variable("lstm_parameters", init=mx.init.FusedRNN(None, hidden, layers, "lstm"))
    state = mx.sym.zeros(shape=(layers, batch_size, hidden))
    cell = mx.sym.zeros(shape=(layers, batch_size, hidden))
    y = mx.sym.RNN(x, params, state, cell, state_size=hidden, num_layers=layers, mode="lstm", p=dropout,
                   name="lstm")
    y = mx.sym.reshape(mx.sym.swapaxes(y, dim1=0, dim2=1), shape=(-1, hidden))  # batch-major rows
    pred = mx.sym.FullyConnected(y, num_hidden=vocab_size, name="pred")
    return mx.sym.SoftmaxOutput(pred, mx.sym.reshape(label, shape=(-1,)), name="softmax")


def make_module(mx, vocab_size, args):
    sym = lstm_lm(mx, vocab_size, args.batch_size, args.embed, args.hidden, args.layers, args.dropout)
    mod = mx.mod.Module(sym, data_names=("data",), label_names=("softmax_label",), context=mx.cpu())
    mod.bind(data_shapes=[("data", (args.batch_size, args.bptt))],
             label_shapes=[("softmax_label", (args.batch_size, args.bptt))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="adam", optimizer_params={"learning_rate": args.lr, "clip_gradient": 5.0})
    return mod


def benchmark(mx, args):
    """Median milliseconds of a training step on random tokens (shapes as in training)."""
    vocab = args.vocab
    mod = make_module(mx, vocab, args)
    rng = np.random.RandomState(0)
    batch = mx.io.DataBatch(data=[mx.nd.array(rng.randint(0, vocab, (args.batch_size, args.bptt)))],
                            label=[mx.nd.array(rng.randint(0, vocab, (args.batch_size, args.bptt)))])
    times = []
    for i in range(args.benchmark + 3):
        t0 = time.perf_counter()
        mod.forward_backward(batch)
        mod.update()
        mod.get_outputs()[0].wait_to_read()
        if i >= 3:
            times.append(time.perf_counter() - t0)
    print("lstm_lm step: %.1f ms (median of %d; batch %d, bptt %d, vocab %d, embed %d, hidden %d, layers %d, "
          "dropout %g, amp %s%s)"
          % (1e3 * np.median(times), len(times), args.batch_size, args.bptt, vocab, args.embed, args.hidden,
             args.layers, args.dropout, args.amp or "off", " with RNN" if args.amp_rnn else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--bptt", type=int, default=35)
    parser.add_argument("--embed", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--lr", type=float, default=0.004)
    parser.add_argument("--vocab", type=int, default=2000, help="vocabulary size for --benchmark")
    parser.add_argument("--benchmark", type=int, default=0, help="time this many steps instead of training")
    parser.add_argument("--mxnet", action="store_true", help="run on MXNet instead of symnet")
    parser.add_argument("--amp", choices=["float16", "bfloat16"], help="mixed precision (AMP) in this dtype")
    parser.add_argument("--amp-rnn", action="store_true",
                        help="with --amp, run the RNN op in the 16-bit dtype too (both AMP lists keep it float32)")
    args = parser.parse_args()
    if args.mxnet:
        import mxnet as mx
        amp = mx.contrib.amp if args.amp else None
    else:
        import symnet as mx
        amp = mx.amp if args.amp else None
    if amp is not None:
        amp.init(target_dtype=args.amp, target_precision_ops=["RNN"] if args.amp_rnn else None)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.benchmark:
        benchmark(mx, args)
        return
    train, held_out, vocab = load_corpus()
    logging.info("corpus: %d training and %d held-out tokens, vocabulary %d", len(train), len(held_out),
                 len(vocab))
    x, y = windows(train, args.bptt)
    vx, vy = windows(held_out, args.bptt)
    train_iter = mx.io.NDArrayIter(x, y, args.batch_size, shuffle=True, last_batch_handle="discard")
    val_iter = mx.io.NDArrayIter(vx, vy, args.batch_size, last_batch_handle="discard")
    mod = make_module(mx, len(vocab), args)
    mod.fit(train_iter, eval_data=val_iter, eval_metric=mx.metric.Perplexity(None), num_epoch=args.num_epochs,
            batch_end_callback=mx.callback.Speedometer(args.batch_size, 50))
    ppl = mod.score(val_iter, mx.metric.Perplexity(None))[0][1]
    print("held-out perplexity %.1f, unigram baseline %.1f" % (ppl, unigram_perplexity(train, held_out, len(vocab))))


if __name__ == "__main__":
    main()
