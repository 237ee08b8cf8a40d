"""Image resizing in numpy with OpenCV's sampling rules (what MXNet's imresize and the Resize
transform run through cv::resize): nearest, bilinear, bicubic, area and Lanczos-4.

Each axis is resampled separately: an output row (column) is a weighted sum of a few input rows
(columns), `taps` of them, whose indices and weights depend only on the sizes. So a resize is
two gathers and weighted sums over whole image planes, fast in numpy for any channel count and
for batches (N, H, W, C) alike. OpenCV computes uint8 images in fixed point; bilinear uint8
resizing copies its arithmetic, the other methods work in float32 and round once, so a pixel
may differ from OpenCV's by 1.
"""
import numpy as np

NEAREST, BILINEAR, BICUBIC, AREA, LANCZOS4 = 0, 1, 2, 3, 4


def _centres(n_in, n_out):
    """Where output pixel i samples the input (pixel centres aligned, OpenCV's convention):
    the integer part and the fraction."""
    f = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
    s = np.floor(f)
    return s.astype(np.int64), (f - s)


def _bilinear(n_in, n_out, area=False):
    if area:
        # INTER_AREA when an axis grows: output pixel i covers [i, i+1) in output units; it takes
        # the input pixel under its start, blended with the next only across that pixel's edge
        scale = n_in / n_out
        s = np.floor(np.arange(n_out) * scale).astype(np.int64)
        t = (np.arange(n_out) + 1) - (s + 1) * (n_out / n_in)
        t = np.where(t <= 0, 0.0, t - np.floor(t))
    else:
        s, t = _centres(n_in, n_out)
    # OpenCV pins samples before the first and past the last centre to the edge pixel
    low, high = s < 0, s >= n_in - 1
    t[low | high] = 0.0
    s[low] = 0
    s[high] = n_in - 1
    idx = np.stack([s, s + 1], axis=1)
    w = np.stack([1.0 - t, t], axis=1)
    return idx, w


def _cubic_weights(t):
    a = -0.75  # OpenCV's bicubic constant
    t1, t2 = t + 1.0, 1.0 - t
    w0 = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    w2 = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1
    return np.stack([w0, w1, w2, 1.0 - w0 - w1 - w2], axis=1)


def _bicubic(n_in, n_out):
    s, t = _centres(n_in, n_out)
    idx = s[:, None] + np.arange(-1, 3)[None, :]
    return idx, _cubic_weights(t)


def _lanczos4(n_in, n_out):
    s, t = _centres(n_in, n_out)
    x = t[:, None] + 3.0 - np.arange(8)[None, :]  # distances to the 8 taps s-3 .. s+4
    with np.errstate(invalid="ignore", divide="ignore"):
        px = np.pi * x
        w = np.where(np.abs(x) < 1e-12, 1.0, np.sin(px) * np.sin(px / 4) / (px * px / 4))
    w /= w.sum(axis=1, keepdims=True)
    return s[:, None] + np.arange(-3, 5)[None, :], w


def _nearest(n_in, n_out):
    # OpenCV's (so MXNet's) INTER_NEAREST: the inverted scale, 1 / (dst / src), in double; where
    # x * src / dst is whole it lands just below and the pixel before is taken (14 -> 18, x = 9:
    # 6.999..., pixel 6)
    s = np.floor(np.arange(n_out, dtype=np.float64) * (1.0 / (n_out / n_in))).astype(np.int64)
    return np.minimum(s, n_in - 1)[:, None], np.ones((n_out, 1))


def _area(n_in, n_out):
    """Shrinking: each output pixel averages the input span it covers, partial pixels by the
    fraction covered."""
    scale = n_in / n_out
    start = np.arange(n_out) * scale
    end = start + scale
    taps = int(np.ceil(scale)) + 1
    first = np.floor(start).astype(np.int64)
    idx = first[:, None] + np.arange(taps)[None, :]
    lo = np.maximum(idx, start[:, None])
    hi = np.minimum(idx + 1, end[:, None])
    w = np.clip(hi - lo, 0.0, None) / scale
    return idx, w


_KERNELS = {NEAREST: _nearest, BILINEAR: _bilinear, BICUBIC: _bicubic, LANCZOS4: _lanczos4}


def _taps(n_in, n_out, interp, shrinking_both):
    if interp == AREA:
        # OpenCV averages areas only when both axes shrink; otherwise INTER_AREA is a bilinear
        # with its own weights
        return _area(n_in, n_out) if shrinking_both else _bilinear(n_in, n_out, area=True)
    return _KERNELS[interp](n_in, n_out)


def _resample(x, axis, idx, w):
    idx = np.clip(idx, 0, x.shape[axis] - 1)  # edge pixels repeat (OpenCV's BORDER_REPLICATE)
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    out = None
    for k in range(idx.shape[1]):
        term = np.take(x, idx[:, k], axis=axis) * w[:, k].astype(np.float32).reshape(shape)
        out = term if out is None else out + term
    return out


def _bilinear_u8(src, width, height):
    """OpenCV's fixed-point bilinear for uint8 (11-bit weights; the rows' blend as its SIMD path
    rounds it): equal to MXNet's output for all but a few pixels, which differ by 1."""
    iy, wy = _bilinear(src.shape[-3], height)
    ix, wx = _bilinear(src.shape[-2], width)
    iy = np.clip(iy, 0, src.shape[-3] - 1)
    ix = np.clip(ix, 0, src.shape[-2] - 1)
    ay = np.rint(wy * 2048).astype(np.int32)
    ax = np.rint(wx * 2048).astype(np.int32)
    s = src.astype(np.int32)
    cols = (np.take(s, ix[:, 0], axis=-2) * ax[:, 0, None] +
            np.take(s, ix[:, 1], axis=-2) * ax[:, 1, None]) >> 4
    col_shape = (-1, 1, 1)
    top = (np.take(cols, iy[:, 0], axis=-3) * ay[:, 0].reshape(col_shape)) >> 16
    bottom = (np.take(cols, iy[:, 1], axis=-3) * ay[:, 1].reshape(col_shape)) >> 16
    return np.clip((top + bottom + 2) >> 2, 0, 255).astype(np.uint8)


def resize(src, width, height, interp=BILINEAR):
    """(H, W, C) or (N, H, W, C) numpy image -> the same layout at height x width; the dtype is
    kept (integers are rounded and saturated)."""
    if interp not in (NEAREST, BILINEAR, BICUBIC, AREA, LANCZOS4):
        raise ValueError("unknown interpolation %r: 0 nearest, 1 bilinear, 2 bicubic, 3 area, "
                         "4 lanczos (9 and 10 are resolved by the caller)" % (interp,))
    width, height = int(width), int(height)
    if width <= 0 or height <= 0:
        raise ValueError("resize: the output size must be positive, not %d x %d (w x h)"
                         % (width, height))
    src = np.asarray(src)
    if src.ndim not in (3, 4):
        raise ValueError("resize: the image must be (H, W, C) or (N, H, W, C), not of shape %s"
                         % (src.shape,))
    h_in, w_in = src.shape[-3], src.shape[-2]
    if h_in == 0 or w_in == 0:
        raise ValueError("resize: the image is empty (shape %s)" % (src.shape,))
    if (h_in, w_in) == (height, width):
        return src.copy()
    if interp == NEAREST:  # a pure gather: exact for every dtype
        iy, _ = _nearest(h_in, height)
        ix, _ = _nearest(w_in, width)
        return np.take(np.take(src, iy[:, 0], axis=-3), ix[:, 0], axis=-2)
    if interp == BILINEAR and src.dtype == np.uint8:
        return _bilinear_u8(src, width, height)
    shrinking = height <= h_in and width <= w_in
    x = src.astype(np.float32)
    x = _resample(x, x.ndim - 3, *_taps(h_in, height, interp, shrinking))
    x = _resample(x, x.ndim - 2, *_taps(w_in, width, interp, shrinking))
    if np.issubdtype(src.dtype, np.integer):
        info = np.iinfo(src.dtype)
        return np.clip(np.rint(x), info.min, info.max).astype(src.dtype)
    return x.astype(src.dtype)
