#!/usr/bin/env python3
"""Trains a CIFAR-style ResNet (default depth 20) on scikit-learn's digits upsampled to 32x32
RGB images, with momentum SGD, and reports held-out accuracy.

    python3 example/cifar_resnet/train_digits.py [--depth 20] [--epochs 4] [--dtype float32]
"""
import argparse
import time

import numpy as np

import symnet as mx


def digits_32x32(seed=0):
    """(x_train, y_train, x_test, y_test): 8x8 digits scaled to [0, 1], each pixel repeated 4x4,
    gray copied to 3 channels, normalised; an 80/20 split after a seeded shuffle."""
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)
    x = np.kron(x, np.ones((4, 4), np.float32))[:, None].repeat(3, axis=1)
    x = (x - 0.3) / 0.4
    y = d.target.astype(np.float32)
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return x[:split], y[:split], x[split:], y[split:]


def train(depth=20, epochs=4, batch=32, lr=0.05, dtype="float32", seed=0, verbose=True):
    x_train, y_train, x_test, y_test = digits_32x32(seed)
    net = mx.models.cifar_resnet(depth, num_classes=10)
    exe = net.simple_bind(mx.cpu(), grad_req={n: "write" for n in net.list_arguments()
                                              if n not in ("data", "softmax_label")},
                          type_dict={"data": dtype}, data=(batch, 3, 32, 32))
    rng = np.random.RandomState(seed)
    params = [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    for n in params:  # He initialisation for convolutions, identity BatchNorm
        a = exe.arg_dict[n]
        if n.endswith("weight"):
            fan_in = int(np.prod(a.shape[1:]))
            a[:] = rng.normal(0, np.sqrt(2.0 / fan_in), a.shape)
        else:
            a[:] = 1.0 if n.endswith("gamma") else 0.0
    for n, a in exe.aux_dict.items():
        a[:] = 1.0 if n.endswith("var") else 0.0
    moms = {n: mx.nd.zeros(exe.arg_dict[n].shape, dtype=exe.arg_dict[n].dtype) for n in params}
    steps = len(x_train) // batch
    start = time.time()
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        for b in range(steps):
            idx = order[b * batch:(b + 1) * batch]
            exe.forward(is_train=True, data=x_train[idx], softmax_label=y_train[idx])
            exe.backward()
            lr_now = lr * 0.5 * (1 + np.cos(np.pi * (epoch * steps + b) / (epochs * steps)))
            for n in params:
                mx.nd.sgd_mom_update(exe.arg_dict[n], exe.grad_dict[n], moms[n], out=exe.arg_dict[n],
                                     lr=lr_now, momentum=0.9, wd=5e-4, rescale_grad=1.0 / batch)
        if verbose:
            print("epoch %d: held-out accuracy %.4f (%.1f s)" % (epoch + 1, evaluate(exe, x_test, y_test, batch),
                                                                  time.time() - start))
    return evaluate(exe, x_test, y_test, batch)


def evaluate(exe, x, y, batch):
    correct = seen = 0
    for b in range(0, len(x) - batch + 1, batch):
        out = exe.forward(is_train=False, data=x[b:b + batch])[0].asnumpy()
        correct += int((out.argmax(1) == y[b:b + batch]).sum())
        seen += batch
    return correct / seen


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--dtype", default="float32")
    args = p.parse_args()
    acc = train(args.depth, args.epochs, args.batch_size, args.lr, args.dtype)
    print("final held-out accuracy %.4f" % acc)
    if acc < 0.95:
        raise SystemExit("accuracy below 0.95")


if __name__ == "__main__":
    main()
