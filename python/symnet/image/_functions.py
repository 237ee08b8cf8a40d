"""mx.image.image's functions (re-exported there): decoding (imdecode, imread), resizing and
cropping of (H, W, C) images, copyMakeBorder, imrotate and color_normalize.

JPEG is decoded in C++ by libjpeg-turbo (bit-identical to MXNet's OpenCV decoder); other formats
(PNG, BMP, ...) go through Pillow when it is installed. Resizing follows OpenCV's sampling rules
in numpy (symnet has no OpenCV): a pixel may differ from MXNet's by 1. The functions take an
NDArray (or a numpy array) and return the same kind. Random choices (random_crop,
random_size_crop, interp=10) draw from the generator mx.random.seed restarts.
"""
import io as _pyio
import numbers

import numpy as np

from .. import _core
from .. import ndarray as nd
from .. import random as _random
from ..base import MXNetError
from ._resize import resize as _resample  # OpenCV's sampling rules in numpy

_JPEG_MAGIC = b"\xff\xd8"


def _pillow_decode(data, flag, to_rgb):
    try:
        from PIL import Image
    except ImportError:
        raise MXNetError("imdecode: the %d-byte image is not a JPEG; symnet decodes JPEG itself and "
                         "other formats (PNG, BMP, ...) through Pillow, which is not installed "
                         "(pip install pillow)" % len(data)) from None
    try:
        with Image.open(_pyio.BytesIO(data)) as im:
            arr = np.asarray(im.convert("L" if flag == 0 else "RGB"))
    except Exception as e:  # Pillow raises many types for damaged data
        raise MXNetError("imdecode: cannot decode the %d-byte image (not a JPEG, and Pillow "
                         "failed: %s)" % (len(data), e)) from None
    if flag == 0:
        return arr[:, :, None]
    return arr if to_rgb else np.ascontiguousarray(arr[:, :, ::-1])


def _decode_np(buf, flag=1, to_rgb=True):
    """Image bytes -> (H, W, C) uint8 numpy array (C = 1 for flag 0, else 3)."""
    if isinstance(buf, nd.NDArray):
        buf = buf.asnumpy().astype(np.uint8, copy=False)
    if isinstance(buf, str):
        raise ValueError("imdecode: buf must be bytes, bytearray or a numpy uint8 array, not str "
                         "(read the file in binary mode, or use imread)")
    if not isinstance(buf, (bytes, bytearray, memoryview, np.ndarray)):
        raise ValueError("imdecode: buf must be bytes, bytearray or a numpy uint8 array, not %s"
                         % type(buf).__name__)
    if isinstance(buf, np.ndarray):
        buf = np.ascontiguousarray(buf)  # its bytes, whatever the dtype (as MXNet reads them)
    data = np.frombuffer(buf, dtype=np.uint8)
    flag = 0 if int(flag) == 0 else 1  # OpenCV's other flags (-1 unchanged) read as colour
    if data.size == 0:
        raise MXNetError("imdecode: the image buffer is empty")
    if data[:2].tobytes() == _JPEG_MAGIC:
        return _core.imdecode(data, flag, bool(to_rgb))
    return _pillow_decode(data.tobytes(), flag, to_rgb)


def _wrap(arr, out=None):
    if out is not None:
        out[:] = arr
        return out
    return nd.array(arr, dtype=arr.dtype)


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decodes image bytes to an (H, W, C) uint8 NDArray: C = 3 (RGB, or BGR with
    to_rgb=False) for flag=1, C = 1 (grayscale) for flag=0. Damaged or unknown data raises
    MXNetError saying what failed."""
    return _wrap(_decode_np(buf, flag, to_rgb), out)


def imread(filename, flag=1, to_rgb=True, out=None):
    """Reads and decodes an image file (see imdecode); the error names the file."""
    with open(filename, "rb") as f:
        data = f.read()
    try:
        return imdecode(data, flag, to_rgb, out)
    except MXNetError as e:
        raise MXNetError("imread: %s: %s" % (filename, e)) from None


def _as_np(src):
    return src.asnumpy() if isinstance(src, nd.NDArray) else np.asarray(src)


def _like(src, arr):
    """The result in the kind of the input: NDArray for an NDArray, else numpy."""
    return nd.array(arr, dtype=arr.dtype) if isinstance(src, nd.NDArray) else arr


def _interp_method(interp, sizes=()):
    """MXNet's interpolation codes: 0-4 as OpenCV; 9 picks by direction; 10 picks at random."""
    if interp == 9:
        if not sizes:
            return 2
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return int(_random.host_rng().randint(0, 5))
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("unknown interpolation method %r (0 nearest, 1 bilinear, 2 bicubic, "
                         "3 area, 4 lanczos, 9 auto, 10 random)" % (interp,))
    return interp


#: MXNet's name of the same function (GluonCV and others import mxnet.image.image._get_interp_method)
_get_interp_method = _interp_method


def _resize_np(arr, w, h, interp):
    sizes = (arr.shape[-3], arr.shape[-2], h, w)
    return _resample(arr, w, h, _interp_method(interp, sizes))


def imresize(src, w, h, interp=1, out=None):
    """Resizes an (H, W, C) (or (N, H, W, C)) image to h x w (see _get_interp_method for
    interp)."""
    arr = _resize_np(_as_np(src), w, h, interp)
    return _wrap(arr, out) if out is not None else _like(src, arr)


def scale_down(src_size, size):
    """Shrinks a crop size (w, h) to fit an image of src_size (w, h), keeping its aspect."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size, interp=2):
    """Resizes so that the shorter edge is `size` (the longer one keeps the aspect, rounded
    down)."""
    h, w = src.shape[0], src.shape[1]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_interp_method(interp, (h, w, new_h, new_w)))


def _fixed_crop_np(arr, x0, y0, w, h, size=None, interp=2):
    out = arr[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = _resize_np(out, size[0], size[1], _interp_method(interp, (h, w, size[1], size[0])))
    return np.ascontiguousarray(out)


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The w x h region at (x0, y0), resized to size (w, h) when given."""
    return _like(src, _fixed_crop_np(_as_np(src), x0, y0, w, h, size, interp))


def _center_crop_np(arr, size, interp=2):
    h, w = arr.shape[0], arr.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = int((w - new_w) / 2), int((h - new_h) / 2)
    return _fixed_crop_np(arr, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centre region of aspect size (w, h), resized to size; returns (image, (x, y, w, h))
    (an image smaller than size is scaled up)."""
    out, box = _center_crop_np(_as_np(src), size, interp)
    return _like(src, out), box


def random_crop(src, size, interp=2):
    """A random region of size (w, h) (scaled down to fit, then resized to size); returns
    (image, (x, y, w, h))."""
    arr = _as_np(src)
    h, w = arr.shape[0], arr.shape[1]
    new_w, new_h = scale_down((w, h), size)
    rng = _random.host_rng()
    x0 = int(rng.randint(0, w - new_w + 1))
    y0 = int(rng.randint(0, h - new_h + 1))
    return _like(src, _fixed_crop_np(arr, x0, y0, new_w, new_h, size, interp)), \
        (x0, y0, new_w, new_h)


def _random_size_crop_np(arr, size, area, ratio, interp=2):
    h, w = arr.shape[0], arr.shape[1]
    src_area = h * w
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    rng = _random.host_rng()
    log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
    for _ in range(10):
        target_area = rng.uniform(area[0], area[1]) * src_area
        new_ratio = np.exp(rng.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        # (MXNet also accepts a 0-pixel side here, which then fails in the resize)
        if 0 < new_w <= w and 0 < new_h <= h:
            x0 = int(rng.randint(0, w - new_w + 1))
            y0 = int(rng.randint(0, h - new_h + 1))
            return _fixed_crop_np(arr, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return _center_crop_np(arr, size, interp)


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A random region of area fraction `area` (min, max) and aspect `ratio` (min, max),
    resized to size (w, h); after 10 misses, the centre crop. Returns (image, (x, y, w, h))."""
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError("random_size_crop: unexpected arguments %s" % sorted(kwargs))
    out, box = _random_size_crop_np(_as_np(src), size, area, ratio, interp)
    return _like(src, out), box


# OpenCV's border types (what copyMakeBorder's `type` takes) as numpy.pad modes; BORDER_ISOLATED
# (16) only matters for views into a larger image, which these arrays never are
_BORDER_MODES = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}
_BORDER_ISOLATED = 16


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):  # noqa: A002,N802
    """An (H, W, C) image with `top`, `bot`, `left` and `right` pixels added around it, as
    MXNet's mx.image.copyMakeBorder (OpenCV's cv::copyMakeBorder): type 0 fills them with
    `values` (one per channel) or `value`, 1 repeats the edge, 2 mirrors (edge included), 3
    wraps around, 4 mirrors (edge excluded). Returns the same kind as src (NDArray or numpy)."""
    arr = _as_np(src)
    kind = int(type) & ~_BORDER_ISOLATED
    widths = ((int(top), int(bot)), (int(left), int(right))) + ((0, 0),) * (arr.ndim - 2)
    if kind == 0:
        fill = np.empty((arr.shape[2],) if arr.ndim == 3 else (), dtype=np.float64)
        fill[...] = value
        if values:  # per channel; OpenCV's Scalar holds 4, the rest of the channels get 0
            fill[...] = 0
            given = np.asarray(values, dtype=np.float64).ravel()[:fill.size]
            fill.flat[:given.size] = given
        shape = (arr.shape[0] + widths[0][0] + widths[0][1], arr.shape[1] + widths[1][0] + widths[1][1])
        result = np.empty(shape + arr.shape[2:], dtype=arr.dtype)
        result[...] = fill.astype(arr.dtype) if arr.dtype.kind != "f" else fill
        result[widths[0][0]:widths[0][0] + arr.shape[0], widths[1][0]:widths[1][0] + arr.shape[1]] = arr
    elif kind in _BORDER_MODES:
        result = np.pad(arr, widths, mode=_BORDER_MODES[kind])
    else:
        raise ValueError("copyMakeBorder: border type %r is not one of 0 (constant), 1 (replicate), "
                         "2 (reflect), 3 (wrap), 4 (reflect_101)" % (type,))
    result = _like(src, result)
    if out is not None:
        out[:] = result
        return out
    return result


def _bilinear_sample(src, x, y):
    """src (N, C, H, W) sampled at pixel coordinates x, y (N, H', W') bilinearly, as MXNet's
    BilinearSampler: neighbours outside the image count as 0."""
    n, c, h, w = src.shape
    x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    out = np.zeros((n, c) + x.shape[1:], dtype=np.float32)
    batch = np.arange(n)[:, None, None]
    for dy in (0, 1):
        for dx in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            weight = (1 - np.abs(x - xi)) * (1 - np.abs(y - yi))
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            values = src[batch, :, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]  # (N, H', W', C)
            out += np.moveaxis(values * (weight * inside)[..., None], -1, 1).astype(np.float32)
    return out


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """src (C, H, W) or (N, C, H, W) float32 rotated about its centre by rotation_degrees
    (counter-clockwise; one angle, or one per image of a batch), bilinearly, the uncovered
    corners black, as MXNet's. zoom_in scales the result so that no black corner shows,
    zoom_out so that the whole rotated image fits."""
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if np.dtype(src.dtype) != np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    arr = _as_np(src)
    expanded = arr.ndim == 3
    if expanded:
        arr = arr[None]
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError("When a single image is passed the rotation angle is required to be a scalar.")
    elif arr.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    if isinstance(rotation_degrees, numbers.Number):
        rotation_degrees = [rotation_degrees] * len(arr)
    angles = _as_np(rotation_degrees).astype(np.float32).ravel()
    if len(arr) != len(angles):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    rad = (np.float32(np.pi) * angles / np.float32(180))[:, None, None]
    _, _, h, w = arr.shape
    hscale, wscale = np.float32((h - 1) / 2.0), np.float32((w - 1) / 2.0)
    hm = (np.arange(h, dtype=np.float32)[:, None] - hscale)[None] * np.ones((1, 1, w), np.float32)
    wm = (np.arange(w, dtype=np.float32)[None, :] - wscale)[None] * np.ones((1, h, 1), np.float32)
    cos, sin = np.cos(rad), np.sin(rad)
    # the grid in [-1, 1] (normalised after the rotation, which keeps the aspect ratio)
    wrot = (wm * cos - hm * sin) / wscale
    hrot = (wm * sin + hm * cos) / hscale
    if zoom_in or zoom_out:
        fh, fw = np.float32(h), np.float32(w)
        rho, ang = np.sqrt(fh * fh + fw * fw), np.arctan(fh / fw)
        max_x = np.maximum(np.abs(rho * np.cos(ang + np.abs(rad))), np.abs(rho * np.cos(ang - np.abs(rad))))
        max_y = np.maximum(np.abs(rho * np.sin(ang + np.abs(rad))), np.abs(rho * np.sin(ang - np.abs(rad))))
        if zoom_out:
            scale = np.maximum(max_x / fw, max_y / fh)
        else:
            scale = np.minimum(fw / max_x, fh / max_y)
        wrot, hrot = wrot * scale, hrot * scale
    x = (wrot + 1) * (w - 1) / np.float32(2)
    y = (hrot + 1) * (h - 1) / np.float32(2)
    out = _bilinear_sample(arr.astype(np.float32), x, y)
    return _like(src, out[0] if expanded else out)


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by an angle drawn uniformly from angle_limits (numpy's global generator, as
    MXNet's): one for an image, one per image of a batch."""
    if src.ndim == 3:
        rotation_degrees = np.random.uniform(*angle_limits)
    else:
        rotation_degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, rotation_degrees, zoom_in=zoom_in, zoom_out=zoom_out)


def color_normalize(src, mean, std=None):
    """(src - mean) / std, in place on src as MXNet does."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src
