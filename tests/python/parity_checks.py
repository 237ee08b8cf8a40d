"""What the MXNet 1.9.1 parity tests share: where the references are, skipping (or, in CI,
failing) when they could not be made, and how a float32 gradient is judged against MXNet's."""
import json
import os

import numpy as np
import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REFS = os.environ.get("SYMNET_MXNET_REFS", os.path.join(REPO, "build", "mxnet_refs"))
MXNET_PYTHON = os.environ.get("SYMNET_MXNET_PYTHON",
                              os.path.join(REPO, "build", "mxnet-venv", "bin", "python"))


def manifest():
    """The references' manifest; skips the test with the reason they are missing (fails it
    under SYMNET_REQUIRE_MXNET_REFS=1, as CI sets: a parity run that cannot fail is no pass)."""
    path = os.path.join(REFS, "manifest.json")
    if not os.path.exists(path):
        why = os.path.join(REFS, "UNAVAILABLE")
        reason = open(why).read().strip() if os.path.exists(why) else (
            "no MXNet references in %s: run tests/mxnet_parity/make_references.py under mxnet==1.9.1 "
            "(tools/run_tests.sh does)" % REFS)
        if os.environ.get("SYMNET_REQUIRE_MXNET_REFS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    with open(path) as f:
        return json.load(f)


def ref_file(name):
    """The path of one file of the MXNet references; skips (fails in CI) when the references or
    this file are missing (references made before the function that writes it existed)."""
    manifest()
    path = os.path.join(REFS, name)
    if not os.path.exists(path):
        why = ("%s is not among the MXNet references in %s: rerun tests/mxnet_parity/make_references.py"
               % (name, REFS))
        if os.environ.get("SYMNET_REQUIRE_MXNET_REFS") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return path


def close(actual, expected, rtol, what, atol_frac=1e-4):
    """rtol, plus an absolute floor relative to the array's largest value (elements near zero
    in a large-valued array carry that array's rounding)."""
    atol = max(1e-5, atol_frac * float(np.abs(expected).max()) if expected.size else 0.0)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


class Float64Arbiter:
    """The arbiter where symnet's and MXNet's float32 gradients differ by more than 1e-3.

    Deep nets with random weights and training-mode BatchNorm on small batches are badly
    conditioned: float32 rounding alone moves some gradients by percents (Inception v3 at batch
    1: 5-10% relative L2 error in most weight gradients, in MXNet and in symnet alike; MobileNet's
    first BatchNorm gamma: 0.6% in both). And MXNet 1.9.1's MobileNet v2 gradients are 3-7% off
    (symnet's: 1e-4). There the exact answer decides: symnet's float64 gradient (its ops are
    checked against float64 finite differences one by one), and symnet's float32 gradients must
    be at least as close to it as MXNet's are: over all the gradients it arbitrates (root mean
    square of the relative L2 errors, within a factor 1.5), and for each one within a factor 3
    plus 1% (a wrong gradient is off by its whole size).
    One gradient's float32 error is a random draw (how the rounding of a badly conditioned sum
    falls), and two frameworks' draws differ by 3x either way (Inception v3: symnet's RMS error
    5.1e-2, MXNet's 6.8e-2, and 6 of 277 gradients worse than MXNet's, one by 3.1x); over a
    network's gradients they average out, while a real accuracy loss would not.

    compute() returns {name: float64 gradient}; it runs only when a gradient needs arbitration."""

    def __init__(self, name, compute):
        self.name, self.compute, self.grads = name, compute, None
        self.errors = []  # (arg, symnet's error, MXNet's error)

    def check(self, arg, idx, ours, theirs):
        if self.grads is None:
            self.grads = self.compute()
        # compute() may return two answers: the one on symnet's side of every kink, and the
        # plain one that MXNet's rounding is measured against (KinkMatch)
        mine, plain = self.grads if isinstance(self.grads, tuple) else (self.grads, self.grads)
        pick = (lambda g: g[arg]) if idx is None else (lambda g: g[arg].reshape(-1)[idx])
        exact = pick(mine)
        # an exactly-zero gradient is compared in absolute terms
        norm = float(np.linalg.norm(exact)) or 1.0
        err_ours = float(np.linalg.norm(ours - exact)) / norm
        exact_plain = pick(plain)
        err_theirs = float(np.linalg.norm(theirs - exact_plain)) / (float(np.linalg.norm(exact_plain)) or 1.0)
        if err_ours <= 1e-3:
            return  # within rtol 1e-3 of the exact gradient as a whole (a few entries near 0 are not)
        self.errors.append((arg, err_ours, err_theirs))
        assert err_ours <= 3 * err_theirs + 1e-2, (
            "%s gradient of %s: symnet's float32 differs from MXNet's by more than 1e-3, and from the "
            "float64 gradient by %.2e (relative L2), where MXNet's differs by %.2e"
            % (self.name, arg, err_ours, err_theirs))

    def finish(self):
        """The check over every arbitrated gradient of the network."""
        if not self.errors:
            return
        ours = float(np.sqrt(np.mean([e[1] ** 2 for e in self.errors])))
        theirs = float(np.sqrt(np.mean([e[2] ** 2 for e in self.errors])))
        assert ours <= 1.5 * theirs + 1e-4, (
            "%s: over the %d gradients where the frameworks differ by more than 1e-3, symnet's float32 "
            "ones are %.2e from the float64 gradients (RMS relative L2 error), MXNet's %.2e; worst: %s"
            % (self.name, len(self.errors), ours, theirs, max(self.errors, key=lambda e: e[1] / (e[2] + 1e-12))))


def _sibling(arg):
    """The scale parameter beside a shift parameter: conv_weight for conv_bias, bn_gamma for
    bn_beta (symbol names), features.0.weight for features.0.bias (Gluon structural names)."""
    for shift, scale in (("bias", "weight"), ("beta", "gamma")):
        for sep in ("_", "."):
            if arg.endswith(sep + shift):
                return arg[:-len(shift)] + scale
    return None


def _grad_scale(ref, arg):
    """The largest magnitude of MXNet's gradient of `arg` (stored whole or sampled), or None."""
    if arg is None:
        return None
    if "grad:" + arg in ref:
        return float(np.abs(ref["grad:" + arg]).max())
    return float(ref["gradmax:" + arg]) if "gradmax:" + arg in ref else None


def compare_gradients(name, ref, ours_of, exact, special=None):
    """Checks symnet's gradient of every argument MXNet's reference holds (`grad:<arg>` whole, or
    `gradidx:` / `gradsample:` / `gradmax:` for a fixed sample of a large one); ours_of(arg) is
    symnet's whole float32 gradient, `exact` a Float64Arbiter, special(arg, ours) a check of its
    own that returns True to replace the comparison. Returns how many gradients were checked."""
    grads = [k[5:] for k in ref if k.startswith("grad:")]
    sampled = [k[11:] for k in ref if k.startswith("gradsample:")]
    for n in grads + sampled:
        idx = ref.get("gradidx:" + n)  # large gradients: a fixed random sample of entries
        theirs = ref["grad:" + n] if idx is None else ref["gradsample:" + n]
        ours = ours_of(n)
        ours = ours if idx is None else ours.reshape(-1)[idx]
        sibling = _grad_scale(ref, _sibling(n))
        if sibling is not None and np.abs(theirs).max() < 1e-3 * sibling:
            # a convolution bias or BatchNorm beta right before a BatchNorm (in training mode)
            # has a zero gradient in exact arithmetic; both frameworks give rounding noise,
            # which must stay that small next to the weight's or gamma's gradient
            assert np.abs(ours).max() < 1e-3 * sibling, "%s gradient of %s" % (name, n)
            continue
        if special is not None and special(n, ours):
            continue
        scale = _grad_scale(ref, n)
        if np.allclose(ours, theirs, rtol=1e-3, atol=max(1e-5, 1e-4 * scale)):
            continue
        exact.check(n, idx, ours, theirs)
    exact.finish()
    return len(grads) + len(sampled)


class KinkMatch:
    """Makes a float64 graph run take the float32 run's side of every kink.

    A ReLU whose input is within float32 rounding of 0 (4e-6 against 1e-6 seen in VGG-11 with
    oneDNN's AVX2 kernels) can come out 0 in one precision and positive in the other; that one
    element then moves every gradient below it by up to percents, a difference of branch, not
    of arithmetic (with the branch matched, the same gradients agree to 5e-6). record() is the
    float32 executor's monitor callback: it keeps every forward node's output. replay() is the
    float64 executor's: where an output is exactly 0 in one run and not in the other, and the
    two differ by no more than `slack` times the largest difference between the runs among
    that output's other elements (the rounding the output carries anyway, so not a bug), it
    writes the float32 value into the float64 output before the nodes after it read it. The
    float64 answer is then exact for an input that differs from the real one by rounding.
    `flips` lists (node output, elements changed, largest change)."""

    def __init__(self, slack=2.0):
        self.slack, self.outputs, self.flips = slack, {}, []

    def record(self, name, arr):
        if "_backward" not in name:
            self.outputs[name] = arr.asnumpy()

    def replay(self, name, arr):
        mine = self.outputs.get(name)
        if mine is None or mine.shape != tuple(arr.shape):
            return
        v = arr.asnumpy()
        gap = np.abs(v - mine)
        both = (mine != 0) & (v != 0)
        # rounding as this output shows it: the largest gap where neither run is 0
        tol = self.slack * float(gap[both].max()) if both.any() else 0.0
        flip = ((mine == 0) != (v == 0)) & (gap <= tol)
        if flip.any():
            self.flips.append((name, int(flip.sum()), float(np.abs(v - mine)[flip].max())))
            v[flip] = mine[flip]
            arr[:] = v
