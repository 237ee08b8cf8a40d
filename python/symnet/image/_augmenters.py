"""mx.image.image's augmenters (re-exported there): Augmenter, its subclasses and CreateAugmenter."""
import json
import numbers
import random
import warnings

import numpy as np

from .. import ndarray as nd
from ._functions import _as_np, _interp_method, _like, scale_down
from ._resize import resize as _resample  # OpenCV's sampling rules in numpy


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
