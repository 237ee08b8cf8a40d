#!/usr/bin/env python3
"""Writes scikit-learn's bundled digits to two small binary files for the C++ MLP example.

Format (little-endian): b"SNDG", int32 rows, int32 cols, rows*cols float32 features in [0, 1],
rows float32 labels. The split (80/20 after a seeded shuffle) matches train_mlp.py.

    python3 example/mlp/export_digits.py [out_dir]     # default: example/mlp/data
"""
import os
import struct
import sys

import numpy as np


def write(path, x, y):
    with open(path, "wb") as f:
        f.write(b"SNDG")
        f.write(struct.pack("<ii", x.shape[0], x.shape[1]))
        f.write(x.astype("<f4").tobytes())
        f.write(y.astype("<f4").tobytes())


def main():
    from sklearn.datasets import load_digits
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "data")
    os.makedirs(out, exist_ok=True)
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.float32)
    order = np.random.RandomState(0).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    write(os.path.join(out, "digits_train.bin"), x[:split], y[:split])
    write(os.path.join(out, "digits_test.bin"), x[split:], y[split:])
    print("wrote %d training and %d test images to %s" % (split, len(x) - split, out))


if __name__ == "__main__":
    main()
