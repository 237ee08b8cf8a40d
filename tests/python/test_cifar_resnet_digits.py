"""Acceptance (CNN issue): a CIFAR-style ResNet-20 trains on scikit-learn's digits upsampled to
32x32 to >= 95% held-out accuracy (about 15 s on 2 cores)."""
import os
import sys

import pytest

pytest.importorskip("sklearn")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "example", "cifar_resnet"))

import train_digits  # noqa: E402


def test_resnet20_digits_reaches_95_percent():
    assert train_digits.train(depth=20, epochs=4, verbose=False) >= 0.95
