"""The Gluon AMP recipe (example/gluon/amp_digits.py, written as MXNet's AMP tutorial writes
it) runs verbatim: the same file under MXNet 1.9.1 (its venv, float32: MXNet's CPU build has no
float16 GEMM) and under symnet, and with model_zoo.vision.resnet18_v1 in float16 and bfloat16 (two epochs).
The accuracy of the full ResNet-18 recipe (8 epochs per precision, about a minute each on 2
cores) is measured in docs/amp.md rather than here, to keep CI inside its time budget; the MLP
recipe's accuracy in every precision is tested in test_gluon.py."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from parity_checks import MXNET_PYTHON, REPO, manifest

SCRIPT = os.path.join(REPO, "example", "gluon", "amp_digits.py")


@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    """scikit-learn's digits as an .npz, so the MXNet venv needs no scikit-learn."""
    datasets = pytest.importorskip("sklearn.datasets")
    d = datasets.load_digits()
    path = tmp_path_factory.mktemp("digits") / "digits.npz"
    np.savez(path, x=d.data, y=d.target)
    return str(path)


def _run(python, *args):
    out = subprocess.run([python, SCRIPT] + list(args), capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, OMP_NUM_THREADS="2"))
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    return float(re.search(r"test accuracy ([0-9.]+)", out.stdout).group(1)), out.stdout


def test_gluon_script_runs_unchanged_under_mxnet_and_symnet(digits):
    manifest()  # the MXNet venv exists where the parity references could be made
    if not os.path.exists(MXNET_PYTHON):
        pytest.fail("no MXNet venv at %s" % MXNET_PYTHON)
    ours, _ = _run(sys.executable, "--data", digits, "--epochs", "10")
    theirs, _ = _run(MXNET_PYTHON, "--mxnet", "--data", digits, "--epochs", "10")
    # same script, same data order, different random initial weights: both learn the task
    assert ours > 0.93 and theirs > 0.93, (ours, theirs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_amp_recipe_runs_verbatim_on_resnet18_v1(digits, dtype):
    acc, out = _run(sys.executable, "--data", digits, "--network", "resnet18_v1",
                    "--dtype", dtype, "--epochs", "2")
    losses = [float(v) for v in re.findall(r"training loss ([0-9.]+)", out)]
    assert len(losses) == 2 and losses[1] < losses[0] < 2.3, out  # learning, below chance
    assert acc > 0.5, out
    scale = float(re.search(r"loss scale ([0-9.e+]+)", out).group(1))
    assert scale >= 1
