#!/usr/bin/env python3
"""A Gluon text classifier in MXNet 1.x's own style: word embeddings, a bidirectional LSTM
(gluon.rnn.LSTM, layout 'NTC') and a dense head that classify short reviews as positive or
negative, trained with Adam and gradient clipping (gluon.utils.clip_global_norm), with padded
batches and their valid lengths (SequenceMask-style mean pooling through F.SequenceMask).

The corpus is generated here (templates of opinion words, negations and filler), so it needs no
download: a review's label is its sentiment after negation, which a bag of words cannot tell,
so the LSTM has to read the order.

It is plain MXNet 1.9.1 code: `import mxnet as mx`. It runs on MXNet 1.9.1 itself and, unchanged,
on symnet once the alias is installed (pip install python/mxnet_alias; docs/mxnet_compat.md).

    python3 example/gluon/text_sentiment_lstm.py --epochs 6
"""
import argparse
import logging
import time

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

POSITIVE = ["good", "great", "fine", "lovely", "excellent", "pleasant"]
NEGATIVE = ["bad", "awful", "poor", "boring", "terrible", "dull"]
SUBJECTS = ["the film", "this book", "the food", "our trip", "the show", "that song"]
FILLER = ["really", "quite", "so", "very", "rather"]


def make_corpus(n, rng):
    """(token lists, labels): 'the film was not really good' -> 0, 'this book was great' -> 1."""
    sentences, labels = [], []
    for _ in range(n):
        positive = rng.rand() < 0.5
        word = rng.choice(POSITIVE if positive else NEGATIVE)
        negated = rng.rand() < 0.5
        words = rng.choice(SUBJECTS).split() + ["was"] + (["not"] if negated else [])
        words += list(rng.choice(FILLER, size=rng.randint(0, 3))) + [word]
        if rng.rand() < 0.3:
            words += ["and", "long"]
        sentences.append(words)
        labels.append(int(positive != negated))
    return sentences, labels


def encode(sentences, vocab, max_len):
    data = np.zeros((len(sentences), max_len), dtype=np.float32)
    lengths = np.zeros(len(sentences), dtype=np.float32)
    for i, words in enumerate(sentences):
        ids = [vocab[w] for w in words][:max_len]
        data[i, :len(ids)] = ids
        lengths[i] = len(ids)
    return data, lengths


class SentimentNet(gluon.HybridBlock):
    def __init__(self, vocab_size, embed=32, hidden=32, **kwargs):
        super(SentimentNet, self).__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.Embedding(vocab_size, embed)
            self.encoder = rnn.LSTM(hidden, num_layers=1, layout="NTC", bidirectional=True)
            self.output = nn.Dense(2)

    def hybrid_forward(self, F, tokens, lengths):
        states = self.encoder(self.embedding(tokens))                     # N, T, 2H
        masked = F.SequenceMask(states, sequence_length=lengths, use_sequence_length=True, axis=1)
        pooled = F.broadcast_div(F.sum(masked, axis=1), F.expand_dims(lengths, axis=1))
        return self.output(pooled)


def accuracy(net, loader, ctx):
    metric = mx.metric.Accuracy()
    for tokens, lengths, label in loader:
        metric.update([label], [net(tokens.as_in_context(ctx), lengths.as_in_context(ctx))])
    return metric.get()[1]


def main():
    parser = argparse.ArgumentParser(description="Gluon LSTM sentiment classifier, in MXNet 1.x style")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    mx.random.seed(args.seed)
    rng = np.random.RandomState(args.seed)
    ctx = mx.cpu()

    train_text, train_labels = make_corpus(1600, rng)
    val_text, val_labels = make_corpus(400, rng)
    vocab = {"<pad>": 0}
    for words in train_text + val_text:
        for w in words:
            vocab.setdefault(w, len(vocab))
    max_len = max(len(s) for s in train_text + val_text)
    datasets = []
    for text, labels in ((train_text, train_labels), (val_text, val_labels)):
        tokens, lengths = encode(text, vocab, max_len)
        datasets.append(gluon.data.ArrayDataset(tokens, lengths, np.array(labels, dtype=np.float32)))
    train_loader = gluon.data.DataLoader(datasets[0], batch_size=args.batch_size, shuffle=True)
    val_loader = gluon.data.DataLoader(datasets[1], batch_size=args.batch_size)

    net = SentimentNet(len(vocab))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": args.lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]

    for epoch in range(args.epochs):
        tic, total, count = time.time(), 0.0, 0
        for tokens, lengths, label in train_loader:
            tokens, lengths, label = tokens.as_in_context(ctx), lengths.as_in_context(ctx), label.as_in_context(ctx)
            with autograd.record():
                loss = loss_fn(net(tokens, lengths), label)
            loss.backward()
            grads = [p.grad(ctx) for p in params]
            gluon.utils.clip_global_norm(grads, args.clip * tokens.shape[0])
            trainer.step(tokens.shape[0])
            total += loss.sum().asscalar()
            count += tokens.shape[0]
        logging.info("Epoch[%d] loss=%.4f val accuracy=%.4f time=%.1fs", epoch, total / count,
                     accuracy(net, val_loader, ctx), time.time() - tic)
    val_acc = accuracy(net, val_loader, ctx)
    logging.info("final validation accuracy %.4f", val_acc)
    return val_acc


if __name__ == "__main__":
    main()
