#!/usr/bin/env python3
"""A Gluon image classifier in MXNet 1.x's own style (the shape of MXNet's example/gluon/mnist):
a LeNet-like network on scikit-learn's 8x8 handwritten digits (shipped with scikit-learn, so no
download), upsampled to 16x16, trained with gluon.Trainer under autograd.record, hybridized,
evaluated with mx.metric.Accuracy, saved with save_parameters and loaded back.

It is plain MXNet 1.9.1 code: `import mxnet as mx`. It runs on MXNet 1.9.1 itself and, unchanged,
on symnet once the alias is installed (pip install python/mxnet_alias; docs/mxnet_compat.md).

    python3 example/gluon/digits_cnn.py --epochs 4
"""
import argparse
import logging
import os
import tempfile
import time

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn


def load_digits(ctx):
    from sklearn.datasets import load_digits as sk_digits
    digits = sk_digits()
    images = digits.images.astype(np.float32) / 16.0
    images = images.repeat(2, axis=1).repeat(2, axis=2)[:, None]  # 1 x 16 x 16
    labels = digits.target.astype(np.float32)
    order = np.random.RandomState(0).permutation(len(labels))
    images, labels = images[order], labels[order]
    split = int(len(labels) * 0.8)
    return (gluon.data.ArrayDataset(mx.nd.array(images[:split]), mx.nd.array(labels[:split])),
            gluon.data.ArrayDataset(mx.nd.array(images[split:]), mx.nd.array(labels[split:])))


def build_net():
    net = nn.HybridSequential(prefix="lenet_")
    with net.name_scope():
        net.add(nn.Conv2D(16, kernel_size=3, padding=1, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(32, kernel_size=3, padding=1),
                nn.BatchNorm(),
                nn.Activation("relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(),
                nn.Dense(64, activation="relu"),
                nn.Dropout(0.2),
                nn.Dense(10))
    return net


def evaluate(net, loader, ctx):
    metric = mx.metric.Accuracy()
    for data, label in loader:
        output = net(data.as_in_context(ctx))
        metric.update([label.as_in_context(ctx)], [output])
    return metric.get()[1]


def main():
    parser = argparse.ArgumentParser(description="Gluon CNN on the digits, in MXNet 1.x style")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    mx.random.seed(args.seed)
    np.random.seed(args.seed)
    ctx = mx.cpu()

    train_set, val_set = load_digits(ctx)
    train_loader = gluon.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True, last_batch="rollover")
    val_loader = gluon.data.DataLoader(val_set, batch_size=args.batch_size)

    net = build_net()
    net.initialize(mx.init.Xavier(magnitude=2.24), ctx=ctx)
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": args.lr, "momentum": 0.9, "wd": 1e-4})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    metric = mx.metric.Accuracy()

    for epoch in range(args.epochs):
        tic = time.time()
        metric.reset()
        total_loss, samples = 0.0, 0
        for data, label in train_loader:
            data, label = data.as_in_context(ctx), label.as_in_context(ctx)
            with autograd.record():
                output = net(data)
                loss = loss_fn(output, label)
            loss.backward()
            trainer.step(data.shape[0])
            metric.update([label], [output])
            total_loss += loss.sum().asscalar()
            samples += data.shape[0]
        name, train_acc = metric.get()
        logging.info("Epoch[%d] train %s=%.4f loss=%.4f val accuracy=%.4f time=%.1fs", epoch, name, train_acc,
                     total_loss / samples, evaluate(net, val_loader, ctx), time.time() - tic)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lenet.params")
        net.save_parameters(path)
        restored = build_net()
        restored.load_parameters(path, ctx=ctx)
        restored.hybridize()
        val_acc = evaluate(restored, val_loader, ctx)
    logging.info("final validation accuracy %.4f (reloaded from save_parameters)", val_acc)
    return val_acc


if __name__ == "__main__":
    main()
