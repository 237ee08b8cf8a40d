"""A convolution's oneDNN staging copies (its data reordered into the primitive's blocked format)
do not outlive the call when they are huge: imperative calls keep their kernel states in a cache,
and MXNet's test_gluon.test_slice_* tests (a 512 MiB input) would otherwise keep two more
copies of the input alive beside it."""
import numpy as np

import symnet as mx
from symnet import _core


def test_huge_imperative_convolution_keeps_no_staging_copy():
    # 1 x 64 x 1100 x 1000 float32: 282 MB, above the 256 MiB a staging buffer may stay
    x = mx.nd.ones((1, 64, 1100, 1000))
    w = mx.nd.ones((64, 64, 1, 1)) / 64
    x.attach_grad()
    w.attach_grad()
    mx.nd.waitall()
    before = _core.cpu_bytes_in_use()
    with mx.autograd.record():
        y = mx.nd.Convolution(x, w, kernel=(1, 1), num_filter=64, no_bias=True)
    y.backward()
    out = y.asnumpy()
    np.testing.assert_allclose(out[0, :, :2, :2], 1.0, rtol=1e-6)
    # what stays: the output (and its recorded copy's storage, shared) and nothing sized like x
    held = _core.cpu_bytes_in_use() - before
    assert held < x.size * 4 * 1.5, "%d MB held after the call" % (held >> 20)
