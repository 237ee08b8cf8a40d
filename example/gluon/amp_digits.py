#!/usr/bin/env python3
"""MXNet's Gluon mixed-precision recipe, as MXNet's AMP tutorial writes it, on scikit-learn's
digits: amp.init, a hybridized network, gluon.Trainer + amp.init_trainer, a DataLoader, and
autograd.record with amp.scale_loss. Only the import differs from an MXNet script (`import
symnet as mx`; with --mxnet the same file runs on MXNet 1.9.1 itself).

    python3 example/gluon/amp_digits.py --network resnet18_v1 --dtype bfloat16

--network mlp (Dense 64 + Dense 10 on the 64 pixels) or resnet18_v1 (the model zoo's, on the
8x8 digits scaled up to 3x32x32); --dtype float32 trains without AMP. Prints the test accuracy
and, with AMP, the final loss scale and how many steps overflow skipped.
"""
import argparse

import numpy as np

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--network", default="mlp", choices=["mlp", "resnet18_v1"])
parser.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
parser.add_argument("--epochs", type=int, default=None,
                    help="default: 20 for the MLP, 8 for ResNet-18")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=None, help="default: 0.1 (MLP), 0.01 (ResNet)")
parser.add_argument("--data", default=None,
                    help="an .npz with x (N, 64) and y (N,) instead of scikit-learn's digits")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--mxnet", action="store_true", help="run on MXNet instead of symnet")
args = parser.parse_args()

if args.mxnet:
    import mxnet as mx
    from mxnet import autograd, gluon
    from mxnet.contrib import amp
else:
    import symnet as mx
    from symnet import autograd, gluon
    from symnet.contrib import amp


def load_digits():
    """1397 training and 400 test images; pixels in [0, 1]."""
    if args.data:
        d = np.load(args.data)
        data, target = d["x"], d["y"]
    else:
        from sklearn.datasets import load_digits as sk_digits
        d = sk_digits()
        data, target = d.data, d.target
    perm = np.random.RandomState(1).permutation(len(target))
    x, y = (data[perm] / 16).astype(np.float32), target[perm].astype(np.float32)
    if args.network != "mlp":  # 8x8 -> 3x32x32: each pixel a 4x4 block, grey in three channels
        x = np.kron(x.reshape(-1, 1, 8, 8), np.ones((1, 1, 4, 4), np.float32))
        x = np.repeat(x, 3, axis=1)
    return (x[:1397], y[:1397]), (x[1397:], y[1397:])


def get_network():
    if args.network == "mlp":
        net = gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(gluon.nn.Dense(64, activation="relu"), gluon.nn.Dense(10))
    else:
        net = gluon.model_zoo.vision.get_model(args.network, classes=10)
    net.initialize(mx.init.Xavier(magnitude=2))
    net.hybridize()
    return net


def main():
    mx.random.seed(args.seed)
    np.random.seed(args.seed)
    epochs = args.epochs or (20 if args.network == "mlp" else 8)
    lr = args.lr or (0.1 if args.network == "mlp" else 0.01)
    (x_train, y_train), (x_test, y_test) = load_digits()
    dataloader = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train),
                                       batch_size=args.batch_size, shuffle=True,
                                       last_batch="discard")
    use_amp = args.dtype != "float32"

    if use_amp:
        amp.init(args.dtype)
    net = get_network()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": lr, "momentum": 0.9, "wd": 1e-4})
    if use_amp:
        amp.init_trainer(trainer)
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    for epoch in range(epochs):
        total = 0.0
        for data, label in dataloader:
            with autograd.record(True):
                out = net(data)
                l = loss(out, label)
                if use_amp:
                    with amp.scale_loss(l, trainer) as scaled_loss:
                        autograd.backward(scaled_loss)
                else:
                    autograd.backward(l)
            trainer.step(data.shape[0])
            total += float(l.mean().asscalar())
        print("epoch %d: training loss %.4f" % (epoch, total / len(dataloader)))

    metric = mx.metric.Accuracy()
    for data, label in gluon.data.DataLoader(gluon.data.ArrayDataset(x_test, y_test),
                                             batch_size=100):
        metric.update([label], [net(data)])
    print("test accuracy %.4f" % metric.get()[1])
    if use_amp:
        print("loss scale %g" % trainer._amp_loss_scaler.loss_scale)


if __name__ == "__main__":
    main()
