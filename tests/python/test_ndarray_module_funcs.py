"""The rest of MXNet 1.9.1's mxnet.ndarray.ndarray module: histogram (as numpy.histogram, int64
counts), the deprecated imdecode (what MXNet's kernel computes: (c, h, w) float32 in OpenCV's
BGR order, clipped, minus a mean), the indexing helpers and the dtype-flag tables."""
import io

import numpy as np
import pytest

import symnet as mx


def test_histogram_matches_numpy():
    x = np.random.RandomState(0).normal(size=(4, 5)).astype(np.float32)
    counts, edges = mx.nd.histogram(mx.nd.array(x), bins=4, range=(-1.5, 1.5))
    want_counts, want_edges = np.histogram(x, bins=4, range=(-1.5, 1.5))
    assert counts.dtype == np.int64 and edges.dtype == np.float32
    np.testing.assert_array_equal(counts.asnumpy(), want_counts)
    np.testing.assert_allclose(edges.asnumpy(), want_edges, rtol=1e-6)
    bins = mx.nd.array([-1.0, 0.5, 2.0, 50.0])
    counts, edges = mx.nd.histogram(mx.nd.array(x), bins=bins)
    np.testing.assert_array_equal(counts.asnumpy(), np.histogram(x, bins=bins.asnumpy())[0])
    with pytest.warns(UserWarning, match="range is not specified"):
        counts, _ = mx.nd.histogram(mx.nd.array(x), bins=3)
    np.testing.assert_array_equal(counts.asnumpy(), np.histogram(x, bins=3)[0])
    with pytest.raises(ValueError, match="integer or an NDArray"):
        mx.nd.histogram(mx.nd.array(x), bins=[1, 2])


def test_deprecated_imdecode():
    from PIL import Image
    img = (np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "png")
    s = buf.getvalue()
    out = mx.nd.imdecode(s)
    assert out.shape == (3, 2, 3) and out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), img[:, :, ::-1].transpose(2, 0, 1))  # BGR
    clipped = mx.nd.imdecode(s, clip_rect=(1, 0, 3, 2), mean=mx.nd.ones((3, 2, 2)))
    np.testing.assert_array_equal(clipped.asnumpy(), img[:, 1:3, ::-1].transpose(2, 0, 1) - 1.0)
    batch = mx.nd.zeros((2, 3, 2, 3))
    mx.nd.imdecode(s, out=batch, index=1)
    np.testing.assert_array_equal(batch[1].asnumpy(), out.asnumpy())
    assert mx.nd.imdecode(s, channels=1).shape == (1, 2, 3)


def test_indexing_helpers_and_tables():
    nd = mx.nd.ndarray
    assert nd.indexing_key_expand_implicit_axes((0, Ellipsis), (2, 3, 4)) == ((0, slice(None), slice(None)), -1)
    assert nd.indexing_key_expand_implicit_axes(np.s_[:2, None, 0], (3, 4, 5))[0] == \
        (slice(None, 2), None, 0, slice(None))
    assert nd.get_indexing_dispatch_code((0, slice(None))) == 0
    assert nd.get_indexing_dispatch_code(([0, 1],)) == 1 and nd.get_indexing_dispatch_code(((),)) == 2
    assert nd.get_oshape_of_gather_nd_op((5, 6, 7), (2, 3)) == (3, 7)
    assert nd._DTYPE_NP_TO_MX[np.float16] == 2 and nd._DTYPE_MX_TO_NP[12] == mx.base.bfloat16
    assert mx.nd._GRAD_REQ_MAP == {"null": 0, "write": 1, "add": 3}
    assert nd._new_empty_handle().is_none()
