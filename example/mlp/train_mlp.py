#!/usr/bin/env python3
"""Trains a 64-128-64-10 MLP on scikit-learn's bundled handwritten digits with symnet's
MXNet-style symbol API: simple_bind, forward, backward, and a hand-written SGD loop.

    python3 example/mlp/train_mlp.py [--epochs 30] [--batch-size 32] [--lr 0.1] [--amp float16]
"""
import argparse
import time

import numpy as np

import symnet as mx


def load_digits(seed=0):
    """8x8 digit images scaled to [0, 1], split 80/20 into train and held-out sets."""
    from sklearn.datasets import load_digits as sk_digits
    digits = sk_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.float32)
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return x[:split], y[:split], x[split:], y[split:]


def mlp_symbol():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=128, name="fc1")
    act1 = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act1, num_hidden=64, name="fc2")
    act2 = mx.sym.Activation(fc2, act_type="relu", name="relu2")
    fc3 = mx.sym.FullyConnected(act2, num_hidden=10, name="fc3")
    return mx.sym.SoftmaxOutput(fc3, name="softmax")


def train(epochs=30, batch_size=32, lr=0.1, momentum=0.9, seed=0, verbose=True):
    x_train, y_train, x_test, y_test = load_digits(seed)
    net = mlp_symbol()
    exe = net.simple_bind(mx.cpu(), data=(batch_size, 64), softmax_label=(batch_size,))
    rng = np.random.RandomState(seed)
    params = [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    for name in params:
        arr = exe.arg_dict[name]
        if name.endswith("weight"):  # Xavier (uniform, avg fan)
            fan_out, fan_in = arr.shape
            scale = np.sqrt(6.0 / (fan_in + fan_out))
            arr[:] = rng.uniform(-scale, scale, size=arr.shape)
        else:
            arr[:] = 0.0
    moms = {n: mx.nd.zeros(exe.arg_dict[n].shape) for n in params}
    n_batches = len(x_train) // batch_size
    start = time.time()
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        for b in range(n_batches):
            idx = order[b * batch_size:(b + 1) * batch_size]
            exe.forward(is_train=True, data=x_train[idx], softmax_label=y_train[idx])
            exe.backward()
            for n in params:  # momentum SGD, written out by hand
                mx.nd.sgd_mom_update(exe.arg_dict[n], exe.grad_dict[n], moms[n], out=exe.arg_dict[n],
                                     lr=lr, momentum=momentum, wd=1e-4, rescale_grad=1.0 / batch_size)
        if verbose and (epoch + 1) % 5 == 0:
            print("epoch %2d  held-out accuracy %.4f" % (epoch + 1, evaluate(exe, x_test, y_test, batch_size)))
    acc = evaluate(exe, x_test, y_test, batch_size)
    if verbose:
        print("trained %d epochs in %.1f s; held-out accuracy %.4f (%d test images)"
              % (epochs, time.time() - start, acc, len(x_test)))
    return acc


def evaluate(exe, x, y, batch_size):
    correct = 0
    n = len(x) // batch_size * batch_size
    for b in range(0, n, batch_size):
        out = exe.forward(is_train=False, data=x[b:b + batch_size])[0].asnumpy()
        correct += int((out.argmax(axis=1) == y[b:b + batch_size]).sum())
    # the tail that does not fill a batch: pad it
    if n < len(x):
        pad = np.zeros((batch_size, x.shape[1]), np.float32)
        rest = len(x) - n
        pad[:rest] = x[n:]
        out = exe.forward(is_train=False, data=pad)[0].asnumpy()[:rest]
        correct += int((out.argmax(axis=1) == y[n:]).sum())
    return correct / len(x)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    acc = train(args.epochs, args.batch_size, args.lr, seed=args.seed)
    if acc < 0.95:
        raise SystemExit("accuracy %.4f is below the 0.95 target" % acc)


if __name__ == "__main__":
    main()
