#!/usr/bin/env python3
"""Trains an image classifier on the built-in digits .rec files (scikit-learn's 1797 handwritten
digits as 32x32 RGB JPEGs, example/resnet50/digits_data.py) the way MXNet's
example/image-classification/train_*.py scripts train on ImageNet or CIFAR: common/data.py's
ImageRecordIter with its augmentation options, common/fit.py's Module.fit with a kvstore, a
learning rate stepped at epochs, checkpoints and Speedometer logs. The training files are
MXNet 1.9.1's scripts' structure and option names; common/find_mxnet.py makes their
`import mxnet` load symnet.

    python3 example/image-classification/train_digits.py --num-epochs 4 --random-crop 1 \\
        --pad-size 2 --max-random-rotate-angle 10 --model-prefix build/digits/lenet

Any .rec files (with --data-train/--data-val, --image-shape, --num-classes, --num-examples)
train the same way.
"""
import argparse
import logging
import os
import sys
from importlib import import_module

from common import find_mxnet, data, fit  # noqa: F401  (find_mxnet first: mxnet is symnet)

HERE = os.path.dirname(os.path.abspath(__file__))


def build_digits(args):
    """Writes the digits .rec/.idx files into --data-dir (once) and points the options at them."""
    sys.path.insert(0, os.path.join(HERE, "..", "resnet50"))
    import digits_data
    size = int(args.image_shape.split(",")[1])
    train, val, num_train, _ = digits_data.build(args.data_dir, size)
    args.data_train, args.data_val = train, val
    args.data_train_idx, args.data_val_idx = train[:-4] + ".idx", val[:-4] + ".idx"
    args.num_examples = num_train


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="train a classifier on the digits .rec files",
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(HERE, "..", "..", "build", "digits_data"),
                        help="where the built-in digits .rec files are written (without --data-train)")
    fit.add_fit_args(parser)
    data.add_data_args(parser)
    data.add_data_aug_args(parser)
    parser.set_defaults(
        # network
        network="lenet",
        # data: the digits as 32x32 RGB; ImageNet's channel statistics
        num_classes=10,
        image_shape="3,32,32",
        rgb_std="58.393,57.12,57.375",
        data_nthreads=2,
        # train
        kv_store="local",
        num_epochs=6,
        batch_size=32,
        lr=0.05,
        lr_step_epochs="4,5",
        disp_batches=10,
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    if args.data_train is None:
        build_digits(args)
    elif args.num_examples is None:
        parser.error("--num-examples is needed with --data-train (the epoch size of the schedule)")

    net = import_module("symbols." + args.network)
    sym = net.get_symbol(**vars(args))
    fit.fit(args, sym, data.get_rec_iter)
