"""mx.image: decoding, resizing and cropping of (H, W, C) images, as MXNet 1.x's mx.image.

JPEG is decoded in C++ by libjpeg-turbo (bit-identical to MXNet's OpenCV decoder); other formats
(PNG, BMP, ...) go through Pillow when it is installed. Resizing follows OpenCV's sampling rules
in numpy (symnet has no OpenCV): a pixel may differ from MXNet's by 1. The functions take an
NDArray (or a numpy array) and return the same kind. Random choices (random_crop,
random_size_crop, interp=10) draw from the generator mx.random.seed restarts.
"""
import io as _pyio
import numbers

import numpy as np

from . import _core
from . import _image_resize
from . import ndarray as nd
from . import random as _random
from .base import MXNetError

__all__ = ["imdecode", "imread", "imresize", "resize_short", "scale_down", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop"]

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


def _resize_np(arr, w, h, interp):
    sizes = (arr.shape[-3], arr.shape[-2], h, w)
    return _image_resize.resize(arr, w, h, _interp_method(interp, sizes))


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


def color_normalize(src, mean, std=None):
    """(src - mean) / std, in place on src as MXNet does."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


# MXNet's augmenters and ImageIter, in their own modules
from ._image_aug import (Augmenter, BrightnessJitterAug, CastAug, CenterCropAug,  # noqa: E402
                         ColorJitterAug, ColorNormalizeAug, ContrastJitterAug, CreateAugmenter,
                         ForceResizeAug, HorizontalFlipAug, HueJitterAug, LightingAug, RandomCropAug,
                         RandomGrayAug, RandomOrderAug, RandomSizedCropAug, ResizeAug,
                         SaturationJitterAug, SequentialAug)
from ._image_iter import ImageIter  # noqa: E402

__all__ += ["Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
            "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug", "ContrastJitterAug",
            "SaturationJitterAug", "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug",
            "RandomGrayAug", "HorizontalFlipAug", "CastAug", "CreateAugmenter", "ImageIter"]
