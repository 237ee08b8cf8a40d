"""MXNet 1.9.1's mx.image.image: decoding, resizing and cropping of (H, W, C) images, the
augmenters (Augmenter and its subclasses, CreateAugmenter) and ImageIter.

JPEG is decoded in C++ by libjpeg-turbo (bit-identical to MXNet's OpenCV decoder); other formats
(PNG, BMP, ...) go through Pillow when it is installed. Resizing follows OpenCV's sampling rules
in numpy (symnet has no OpenCV): a pixel may differ from MXNet's by 1. The functions take an
NDArray (or a numpy array) and return the same kind. Random choices (random_crop,
random_size_crop, interp=10) draw from the generator mx.random.seed restarts.
"""
import io as _pyio
import json
import logging
import numbers
import os
import random
import warnings

import numpy as np

from .. import _core
from .. import io
from .. import ndarray as nd
from .. import random as _random
from .. import recordio
from ..base import MXNetError
from ._resize import resize as _resample  # OpenCV's sampling rules in numpy

__all__ = ["imdecode", "imread", "imresize", "resize_short", "scale_down", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "copyMakeBorder",
           "imrotate", "random_rotate"]

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


# ---- the augmenters ----
#
# An augmenter takes an (H, W, C) image, an NDArray or a numpy array, and returns the same kind.
# As in MXNet, cropping and resizing keep the dtype (uint8 from imdecode), CastAug makes float32,
# and the colour augmenters work on float32 RGB (an integer image is converted to float32 first;
# MXNet would compute in uint8 and wrap around). The result is a new array: MXNet changes some
# images in place, so code that uses the return value works with both.
#
# Random choices are drawn as MXNet draws them, in the same order: Python's `random` module for
# crops, flips, jitter factors, interp=10 and RandomOrderAug's order, numpy's global generator for
# LightingAug. After `random.seed(s); np.random.seed(s)` an augmenter list gives MXNet's output.
# The float32 arithmetic follows MXNet's too: scalars are rounded to float32 before they multiply,
# the 3x3 colour matrices are applied channel by channel in the order MXNet's dot adds them, and
# the sums over the channels are compensated (Kahan) as MXNet's reduction is.

# ITU-R 601 luma weights, as MXNet's contrast and saturation jitter use them
_LUMA = np.array([0.299, 0.587, 0.114], dtype=np.float32)
# RGB <-> YIQ, the basis HueJitterAug rotates the chroma in
_RGB_TO_YIQ = np.array([[0.299, 0.587, 0.114],
                        [0.596, -0.274, -0.321],
                        [0.211, -0.523, 0.311]])
_YIQ_TO_RGB = np.array([[1.0, 0.956, 0.621],
                        [1.0, -0.272, -0.647],
                        [1.0, -1.107, 1.705]])
# RandomGrayAug's mixing matrix (rows: input R, G, B; every output channel gets the same grey)
_GRAY_MIX = np.array([[0.21, 0.21, 0.21],
                      [0.72, 0.72, 0.72],
                      [0.07, 0.07, 0.07]], dtype=np.float32)
# ImageNet's RGB PCA (CreateAugmenter's pca_noise)
_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                        [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])
_IMAGENET_MEAN = [123.68, 116.28, 103.53]
_IMAGENET_STD = [58.395, 57.12, 57.375]


def _check_image(arr, who):
    if arr.ndim != 3:
        raise ValueError("%s: expected an (H, W, C) image, got an array of shape %s" % (who, arr.shape))


def _floating(arr):
    """The image as floats (float32 for integer images); the colour math works on these."""
    return arr if arr.dtype.kind == "f" else arr.astype(np.float32)


def _mix_channels(arr, mat):
    """arr (H, W, 3) times the 3x3 matrix mat, in arr's float type, one input channel at a time
    (c0*m0 + c1*m1) + c2*m2, the order and rounding of MXNet's dot on the CPU."""
    mat = mat.astype(arr.dtype)
    out = arr[:, :, 0:1] * mat[0]
    out += arr[:, :, 1:2] * mat[1]
    out += arr[:, :, 2:3] * mat[2]
    return out


def _kahan_sum_channels(arr):
    """Sum over the last axis with compensation, as MXNet's reduce adds (keepdims)."""
    total = arr[:, :, 0].copy()
    comp = np.zeros_like(total)
    for k in range(1, arr.shape[2]):
        y = arr[:, :, k] - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total[:, :, None]


def _interp(interp, sizes):
    """MXNet's interpolation code for a resize from (oh, ow) to (nh, nw): 9 picks by direction,
    10 draws one of 0-4 from Python's random (as MXNet does)."""
    if interp == 10:
        return random.randint(0, 4)
    return _interp_method(interp, sizes)


def _resize(arr, w, h, interp):
    return _resample(arr, w, h, _interp(interp, (arr.shape[0], arr.shape[1], h, w)))


def _fixed_crop(arr, x0, y0, w, h, size, interp):
    out = arr[y0:y0 + h, x0:x0 + w]
    # MXNet compares (w, h) with size as given: a list size always resizes (an identity
    # resize, but with interp=10 it still draws)
    if size is not None and (w, h) != size:
        out = _resize(out, size[0], size[1], interp)
    return np.ascontiguousarray(out)


def _center_crop(arr, size, interp):
    h, w = arr.shape[0], arr.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = int((w - new_w) / 2), int((h - new_h) / 2)
    return _fixed_crop(arr, x0, y0, new_w, new_h, size, interp)


def _dumpable(kwargs):
    """kwargs with its NDArray and numpy values turned into lists in place, so dumps() can
    write them as JSON (the augmenters here and in detection.py keep their arguments so)."""
    for k, v in list(kwargs.items()):
        if isinstance(v, nd.NDArray):
            v = v.asnumpy()
        if isinstance(v, np.ndarray):
            kwargs[k] = v.tolist()
    return kwargs


class Augmenter:
    """The base of the augmenters: subclasses implement __call__(src) -> image. The keyword
    arguments given here are what dumps() describes (arrays as lists)."""

    def __init__(self, **kwargs):
        self._kwargs = _dumpable(kwargs)

    def dumps(self):
        """A JSON string [lower-case class name, its arguments]."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        if type(self)._apply is Augmenter._apply:
            raise NotImplementedError("%s must implement __call__" % type(self).__name__)
        return _like(src, self._apply(_as_np(src)))

    def _apply(self, arr):
        """The augmentation of a numpy image (the built-in augmenters implement this)."""
        raise NotImplementedError()


def _numpy_ready(aug):
    """Whether aug (and every augmenter it holds) is a built-in one whose __call__ takes numpy
    images; ImageIter then runs the list on numpy arrays without NDArray round trips."""
    cls = type(aug)
    if isinstance(aug, SequentialAug):  # RandomOrderAug too
        return cls.__call__ in (SequentialAug.__call__, RandomOrderAug.__call__) and \
            all(_numpy_ready(t) for t in aug.ts)
    return isinstance(aug, Augmenter) and cls.__call__ is Augmenter.__call__ and \
        cls._apply is not Augmenter._apply


class SequentialAug(Augmenter):
    """Applies the augmenters ts one after the other."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        """[name, [each augmenter's dumps()]] (a list, not a string, as MXNet returns)."""
        return [self.__class__.__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for t in self.ts:
            src = t(src)
        return src


class RandomOrderAug(SequentialAug):
    """Applies the augmenters ts in a random order (random.shuffle of ts, in place, per call)."""

    def __call__(self, src):
        random.shuffle(self.ts)
        return super().__call__(src)


class ResizeAug(Augmenter):
    """Resizes the shorter edge to size (the other keeps the aspect, rounded down)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def _apply(self, arr):
        _check_image(arr, "ResizeAug")
        h, w = arr.shape[0], arr.shape[1]
        if h > w:
            new_h, new_w = self.size * h // w, self.size
        else:
            new_h, new_w = self.size, self.size * w // h
        return _resize(arr, new_w, new_h, self.interp)


class ForceResizeAug(Augmenter):
    """Resizes to size (width, height) whatever the aspect."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def _apply(self, arr):
        _check_image(arr, "ForceResizeAug")
        return _resize(arr, self.size[0], self.size[1], self.interp)


class RandomCropAug(Augmenter):
    """A random size (width, height) crop; an image smaller than size is cropped to size's
    aspect and scaled up."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def _apply(self, arr):
        _check_image(arr, "RandomCropAug")
        h, w = arr.shape[0], arr.shape[1]
        new_w, new_h = scale_down((w, h), self.size)
        x0 = random.randint(0, w - new_w)
        y0 = random.randint(0, h - new_h)
        return _fixed_crop(arr, x0, y0, new_w, new_h, self.size, self.interp)


class RandomSizedCropAug(Augmenter):
    """A crop of random area (a fraction in area = (min, max), or (area, 1.0) for a number) and
    aspect ratio (log-uniform in ratio = (min, max)), resized to size (width, height); after
    10 draws that do not fit, the centre crop. min_area is the old name of area."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size, self.ratio, self.interp = size, ratio, interp
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
            area = kwargs.pop("min_area")
        if kwargs:
            raise TypeError("RandomSizedCropAug: unexpected arguments %s" % sorted(kwargs))
        self.area = area

    def _apply(self, arr):
        _check_image(arr, "RandomSizedCropAug")
        h, w = arr.shape[0], arr.shape[1]
        area = (self.area, 1.0) if isinstance(self.area, numbers.Number) else self.area
        log_ratio = (np.log(self.ratio[0]), np.log(self.ratio[1]))
        for _ in range(10):
            target = random.uniform(area[0], area[1]) * h * w
            aspect = np.exp(random.uniform(*log_ratio))
            new_w = int(round(np.sqrt(target * aspect)))
            new_h = int(round(np.sqrt(target / aspect)))
            # (MXNet also takes a 0-pixel side here, which its resize then rejects)
            if 0 < new_w <= w and 0 < new_h <= h:
                x0 = random.randint(0, w - new_w)
                y0 = random.randint(0, h - new_h)
                return _fixed_crop(arr, x0, y0, new_w, new_h, self.size, self.interp)
        return _center_crop(arr, self.size, self.interp)


class CenterCropAug(Augmenter):
    """The centre crop of size (width, height) (scaled up from a smaller image)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def _apply(self, arr):
        _check_image(arr, "CenterCropAug")
        return _center_crop(arr, self.size, self.interp)


class BrightnessJitterAug(Augmenter):
    """Multiplies the image by 1 + U(-brightness, brightness)."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def _apply(self, arr):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        arr = _floating(arr)
        return arr * arr.dtype.type(alpha)


class ContrastJitterAug(Augmenter):
    """Blends the image with its mean luma: alpha * image + (1 - alpha) * mean grey, alpha =
    1 + U(-contrast, contrast)."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array([[_LUMA.tolist()]])

    def _apply(self, arr):
        _check_image(arr, "ContrastJitterAug")
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        arr = _floating(arr)
        f = arr.dtype.type
        gray = arr * _LUMA.astype(arr.dtype)
        # the sum of every pixel's luma (accurately, as MXNet's compensated sum), then one value
        # 3 * (1 - alpha) * mean added to every channel
        total = f(gray.sum(dtype=np.float64))
        shift = f(3.0 * (1.0 - alpha) / gray.size) * total
        out = arr * f(alpha)
        out += shift
        return out


class SaturationJitterAug(Augmenter):
    """Blends every pixel with its luma: alpha * pixel + (1 - alpha) * grey, alpha = 1 +
    U(-saturation, saturation)."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array([[_LUMA.tolist()]])

    def _apply(self, arr):
        _check_image(arr, "SaturationJitterAug")
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        arr = _floating(arr)
        f = arr.dtype.type
        gray = _kahan_sum_channels(arr * _LUMA.astype(arr.dtype))
        gray *= f(1.0 - alpha)
        out = arr * f(alpha)
        out += gray
        return out


def _hue_matrix(alpha):
    """The RGB matrix that turns the hue by alpha * 180 degrees: a rotation of the chroma
    (I, Q) plane in YIQ space (the linear approximation of a hue shift)."""
    c, s = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
    rotate = np.array([[1.0, 0.0, 0.0],
                       [0.0, c, -s],
                       [0.0, s, c]])
    return np.dot(np.dot(_YIQ_TO_RGB, rotate), _RGB_TO_YIQ).T


class HueJitterAug(Augmenter):
    """Turns the hue by U(-hue, hue) * 180 degrees (in YIQ space)."""

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq, self.ityiq = _RGB_TO_YIQ.copy(), _YIQ_TO_RGB.copy()

    def _apply(self, arr):
        _check_image(arr, "HueJitterAug")
        alpha = random.uniform(-self.hue, self.hue)
        arr = _floating(arr)
        return _mix_channels(arr, _hue_matrix(alpha).astype(np.float32))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those > 0) in a random order."""

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: adds eigvec . (alpha * eigval) to every pixel, alpha ~
    N(0, alphastd) per component, drawn from numpy's global generator."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, eigval, eigvec

    def _apply(self, arr):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(np.asarray(_as_np(self.eigvec), dtype=np.float64) * alpha,
                     np.asarray(_as_np(self.eigval), dtype=np.float64))
        arr = _floating(arr)
        return arr + rgb.astype(np.float32).astype(arr.dtype)


class ColorNormalizeAug(Augmenter):
    """(image - mean) / std per channel; either may be None."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, nd.NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, nd.NDArray) else nd.array(std)
        self._mean_np = None if mean is None else self.mean.asnumpy()
        self._std_np = None if std is None else self.std.asnumpy()

    def _apply(self, arr):
        arr = _floating(arr)
        if self._mean_np is not None:
            arr = arr - self._mean_np.astype(arr.dtype)
        if self._std_np is not None:
            arr = arr / self._std_np.astype(arr.dtype)
        return arr


class RandomGrayAug(Augmenter):
    """With probability p, every channel becomes 0.21 R + 0.72 G + 0.07 B (three channels
    stay)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array(_GRAY_MIX)

    def _apply(self, arr):
        if random.random() < self.p:
            _check_image(arr, "RandomGrayAug")
            return _mix_channels(_floating(arr), _GRAY_MIX)
        return arr


class HorizontalFlipAug(Augmenter):
    """Mirrors the image left-right with probability p."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def _apply(self, arr):
        if random.random() < self.p:
            _check_image(arr, "HorizontalFlipAug")
            return np.ascontiguousarray(arr[:, ::-1])
        return arr


class CastAug(Augmenter):
    """Casts the image to typ (float32 by default)."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def _apply(self, arr):
        return arr.astype(np.dtype(self.typ))


def _check_mean_std(value, what, default):
    if value is True:
        return nd.array(default)
    if value is None or value is False:
        return None
    if not isinstance(value, (np.ndarray, nd.NDArray)) or value.shape[0] not in (1, 3):
        raise ValueError("CreateAugmenter: %s must be True, None or a numpy array / NDArray of 1 or 3 "
                         "values (R, G, B), got %r" % (what, value))
    return value


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,
                    mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                    pca_noise=0, rand_gray=0, inter_method=2):
    """MXNet's standard augmenter list for data_shape (C, H, W), in its order: ResizeAug (resize
    > 0), then a crop to (W, H): RandomSizedCropAug (rand_resize, which needs rand_crop; area
    0.08-1, aspect 3/4-4/3), RandomCropAug (rand_crop) or CenterCropAug; HorizontalFlipAug(0.5)
    (rand_mirror); CastAug; ColorJitterAug (brightness, contrast, saturation); HueJitterAug;
    LightingAug (pca_noise, ImageNet's PCA); RandomGrayAug (rand_gray); ColorNormalizeAug
    (mean / std: True for ImageNet's, or arrays of 1 or 3 values). inter_method is the
    interpolation of every resize (0-4, 9 auto, 10 random)."""
    if len(data_shape) != 3:
        raise ValueError("CreateAugmenter: data_shape must be (channels, height, width), got %s"
                         % (data_shape,))
    augs = []
    if resize > 0:
        augs.append(ResizeAug(resize, inter_method))
    crop = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        augs.append(RandomSizedCropAug(crop, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop, inter_method))
    else:
        augs.append(CenterCropAug(crop, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, _PCA_EIGVAL.copy(), _PCA_EIGVEC.copy()))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    mean = _check_mean_std(mean, "mean", _IMAGENET_MEAN)
    std = _check_mean_std(std, "std", _IMAGENET_STD)
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs


# ---- ImageIter ----
# Reads images from a .rec file (path_imgrec, with path_imgidx for shuffling and partitions), or
# image files named by a .lst file (path_imglist + path_root) or a Python list (imglist); decodes
# them (RGB), runs the augmenter list (aug_list, or CreateAugmenter(data_shape, **kwargs)) and
# batches them as float32 (N, C, H, W). The hooks MXNet's subclasses override are here with the
# same names and roles: next_sample, imdecode, read_image, check_valid_image,
# augmentation_transform, postprocess_data, check_data_shape.
#
# When the list holds only symnet's own augmenters and no hook is overridden, an image goes
# through the list as a numpy array (the same numbers, without an NDArray per step).

_LABEL_DTYPES = ("int32", "float32", "int64", "float64")


def _read_imglist_file(path, dtype):
    """A .lst file -> ({index: (labels, relative path)}, indices in file order)."""
    items, keys = {}, []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.strip().split("\t")
            if len(parts) < 3:
                raise ValueError("ImageIter: %s line %d: expected 'index<TAB>label...<TAB>path', got %r"
                                 % (path, n, line.rstrip("\n")))
            try:
                key = int(parts[0])
                labels = np.array([float(v) for v in parts[1:-1]]).astype(dtype)
            except ValueError as e:
                raise ValueError("ImageIter: %s line %d: the index must be an integer and the labels "
                                 "numbers (%s)" % (path, n, e)) from None
            items[key] = (labels, parts[-1])
            keys.append(key)
    return items, keys


def _read_imglist(imglist, dtype):
    """[[label(s)..., path], ...] -> ({1-based index: (labels, path)}, indices)."""
    items, keys = {}, []
    for k, entry in enumerate(imglist, 1):
        if not isinstance(entry, (list, tuple)) or len(entry) < 2:
            raise ValueError("ImageIter: imglist[%d] must be [label(s), path], got %r" % (k - 1, entry))
        if len(entry) > 2:
            labels = entry[:-1]
        elif isinstance(entry[0], (int, float, np.number)):
            labels = [entry[0]]
        else:
            labels = entry[0]
        if isinstance(labels, nd.NDArray):
            labels = labels.asnumpy()
        items[k] = (np.asarray(labels, dtype=np.float64).ravel().astype(dtype), entry[-1])
        keys.append(k)
    return items, keys


class ImageIter(io.DataIter):
    """Batches of augmented images, as mx.image.ImageIter.

    Sources: path_imgrec (a .rec file; path_imgidx, its .idx, is needed for shuffle and
    num_parts), path_imglist (a .lst file: index, label(s), path relative to path_root) or
    imglist (a list of [label(s), path]). With a .rec and a list, the list gives the labels.
    data_shape is (3, H, W); label_width the number of labels per image. shuffle reorders the
    images every epoch (Python's random.shuffle, as MXNet). part_index / num_parts: the
    part_index-th of num_parts contiguous, equal parts. dtype is the type the list's labels are
    read as (the batch's labels are float32, as MXNet's).

    last_batch_handle: 'pad' (the last batch is completed from the start of the data, freshly
    augmented; batch.pad counts them), 'discard' (it is dropped) or 'roll_over' (its images
    open the next epoch's first batch). One difference from MXNet: that rolled-over batch has
    pad 0 (it holds only real images; MXNet reports the count it had to add).

    Other keyword arguments go to CreateAugmenter (resize, rand_crop, rand_mirror, mean, std,
    brightness, ...) when aug_list is None."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="softmax_label",
                 dtype="float32", last_batch_handle="pad", **kwargs):
        super().__init__(batch_size)
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError("ImageIter: give path_imgrec, path_imglist or imglist (a list)")
        dtype = np.dtype(dtype).name
        if dtype not in _LABEL_DTYPES:
            raise ValueError("ImageIter: label dtype %r is not supported; use one of %s"
                             % (dtype, ", ".join(_LABEL_DTYPES)))
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("ImageIter: last_batch_handle must be 'pad', 'discard' or 'roll_over', "
                             "got %r" % (last_batch_handle,))
        if int(batch_size) < 1:
            raise ValueError("ImageIter: batch_size must be at least 1, got %r" % (batch_size,))
        self.batch_size = int(batch_size)
        if path_imgrec:
            logging.info("ImageIter: loading recordio %s...", path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
                self.imgidx = None
        else:
            self.imgrec, self.imgidx = None, None
        keys = None
        if path_imglist:
            logging.info("ImageIter: loading image list %s...", path_imglist)
            self.imglist, keys = _read_imglist_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, keys = _read_imglist(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.data_shape = tuple(int(v) for v in data_shape)
        self.label_width = int(label_width)
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.provide_data = [io.DataDesc(data_name, (self.batch_size,) + self.data_shape, np.float32)]
        label_shape = (self.batch_size, self.label_width) if self.label_width > 1 else (self.batch_size,)
        self.provide_label = [io.DataDesc(label_name, label_shape, np.float32)]
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError("ImageIter: shuffle and num_parts > 1 need path_imgidx (the .idx file of %s)"
                                 % path_imgrec)
            self.seq = self.imgidx
        else:
            self.seq = None  # the .rec file read front to back
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError("ImageIter: part_index %d is not in [0, num_parts=%d)" % (part_index, num_parts))
            share = len(self.seq) // num_parts
            self.seq = self.seq[part_index * share:(part_index + 1) * share]
        if aug_list is None:
            self.auglist = CreateAugmenter(self.data_shape, **kwargs)
        else:
            if kwargs:
                logging.warning("ImageIter: aug_list is given, so %s (CreateAugmenter's arguments) are "
                                "ignored", sorted(kwargs))
            self.auglist = aug_list
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self.num_data = self.num_image
        self.cur = 0
        self._allow_read = True
        self._cache = None  # roll_over: (data, label, count) of the unfinished batch
        self._where = None
        self.reset()

    # ---- epochs ----------------------------------------------------------------------------------
    def reset(self):
        """Starts the next epoch (reshuffled with shuffle). With roll_over and images held over,
        the data is not rewound: the held images and the rest go on."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache is None:
            if self.imgrec is not None and self.seq is None:  # (reads by key seek anyway)
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Starts the next epoch from the beginning, dropping images held over by roll_over."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None and self.seq is None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache = None

    # ---- samples ---------------------------------------------------------------------------------
    def next_sample(self):
        """(label, image bytes) of the next image; StopIteration at the end of the data (then the
        data is rewound, except with 'discard')."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:  # sequential .rec
            s = self.imgrec.read()
            if s is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(s)
            self._where = "record %d of %s" % (header.id, self.imgrec.uri)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            self._where = "record %r of %s" % (idx, self.imgrec.uri)
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            if self.imglist is None:
                return header.label, img
            if idx not in self.imglist:
                raise KeyError("ImageIter: record key %r of %s is not in the image list" % (idx, self.imgrec.uri))
            return self.imglist[idx][0], img
        label, fname = self.imglist[idx]
        self._where = "file %s" % fname
        return label, self.read_image(fname)

    def read_image(self, fname):
        """The bytes of image file fname (relative to path_root)."""
        with open(os.path.join(self.path_root or "", fname), "rb") as f:
            return f.read()

    def imdecode(self, s):
        """Image bytes -> (H, W, 3) RGB uint8 NDArray; a broken image is a RuntimeError naming it."""
        try:
            return imdecode(s)
        except Exception as e:
            raise RuntimeError("ImageIter: broken image (%s): %s" % (self._where, e)) from None

    def _imdecode_np(self, s):
        try:
            return _decode_np(s)
        except Exception as e:
            raise RuntimeError("ImageIter: broken image (%s): %s" % (self._where, e)) from None

    def check_valid_image(self, data):
        """Raises RuntimeError for an image that cannot be used (such images are skipped)."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def augmentation_transform(self, data):
        """Runs the augmenter list on one (H, W, C) image."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """The augmented (H, W, C) image -> the (C, H, W) batch entry."""
        if isinstance(datum, nd.NDArray):  # (any dtype: symnet's transpose op takes floats only)
            arr = np.ascontiguousarray(datum.asnumpy().transpose(2, 0, 1))
            return nd.array(arr, dtype=arr.dtype)
        return np.transpose(datum, (2, 0, 1))

    def check_data_shape(self, data_shape):
        """data_shape must be (3, H, W)."""
        if len(data_shape) != 3:
            raise ValueError("ImageIter: data_shape should have length 3, with dimensions CxHxW, got %s"
                             % (data_shape,))
        if data_shape[0] != 3:
            raise ValueError("ImageIter: this iterator expects inputs to have 3 channels, got data_shape %s"
                             % (data_shape,))

    # ---- batches ---------------------------------------------------------------------------------
    def _numpy_path(self):
        cls = type(self)
        return all(getattr(cls, m) is getattr(ImageIter, m) for m in
                   ("imdecode", "augmentation_transform", "postprocess_data", "check_valid_image")) and \
            all(_numpy_ready(a) for a in self.auglist)

    def _store_label(self, batch_label, i, label):
        if isinstance(label, nd.NDArray):
            label = label.asnumpy()
        values = np.asarray(label, dtype=np.float64).ravel()
        if values.size != self.label_width:
            raise ValueError("ImageIter: %s has %d label value(s), but label_width is %d"
                             % (self._where, values.size, self.label_width))
        batch_label[i] = values[0] if self.label_width == 1 else values

    def _new_label_batch(self):
        """The numpy array a batch's labels are filled into (ImageDetIter's starts at -1)."""
        return np.zeros(self.provide_label[0].shape, dtype=np.float32)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fills batch_data / batch_label (numpy) from index start; returns how many are filled
        (StopIteration when the data ended before the first)."""
        i = start
        fast = self._numpy_path()
        c, h, w = self.data_shape
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self._imdecode_np(s) if fast else self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping: %s", e)
                    continue
                if fast:
                    datum = np.transpose(self.augmentation_transform(data), (2, 0, 1))
                else:
                    datum = self.postprocess_data(self.augmentation_transform(data))
                    datum = datum.asnumpy() if isinstance(datum, nd.NDArray) else np.asarray(datum)
                if datum.shape != (c, h, w):
                    raise ValueError("ImageIter: %s is %s (CxHxW) after augmentation, but data_shape is %s; "
                                     "the augmenters must crop or resize it to that"
                                     % (self._where, "x".join(map(str, datum.shape)), self.data_shape))
                batch_data[i] = datum
                self._store_label(batch_label, i, label)
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next DataBatch; StopIteration at the end of the epoch."""
        if self._cache is not None:  # roll_over: complete the batch held over from the last epoch
            batch_data, batch_label, i = self._cache
        else:
            batch_data = np.zeros((self.batch_size,) + self.data_shape, dtype=np.float32)
            batch_label = self._new_label_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache is None:
                self._cache = (batch_data, batch_label, i)
                raise StopIteration
            filled = self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache = None
                pad = self.batch_size - filled  # 0: a rolled-over batch holds only real images
        return io.DataBatch([nd.array(batch_data)], [nd.array(batch_label)], pad=pad,
                            provide_data=self.provide_data, provide_label=self.provide_label)

    def __next__(self):
        return self.next()


__all__ += ["Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
            "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug", "ContrastJitterAug",
            "SaturationJitterAug", "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug",
            "RandomGrayAug", "HorizontalFlipAug", "CastAug", "CreateAugmenter", "ImageIter"]
