"""Image transforms (MXNet's gluon.data.vision.transforms), Blocks called on one image (H, W, C)
or, where said, a batch (N, H, W, C).

Cast, ToTensor and Normalize are made of symnet ops and hybridize. The geometric and colour
transforms compute in numpy (symnet has no image ops): they are HybridBlocks where MXNet's are,
so they fit in a HybridSequential, but run imperatively only. They take an NDArray (a numpy
array is accepted too) and return the same kind. Random transforms draw from the generator
mx.random.seed restarts (in DataLoader workers, reseeded per batch; see the DataLoader).
"""
import numpy as np

from .... import image as _image
from .... import ndarray as nd
from .... import random as _random
from .... import symbol as _sym
from ....base import numeric_types
from ...block import Block, HybridBlock
from ...nn import Lambda, Sequential

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop", "CropResize",
           "RandomResizedCrop", "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness",
           "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "RandomApply"]


def _np(x):
    return x.asnumpy() if isinstance(x, nd.NDArray) else np.asarray(x)


def _like(x, arr):
    return nd.array(arr, dtype=arr.dtype) if isinstance(x, nd.NDArray) else arr


class _NumpyHybridBlock(HybridBlock):
    """A transform MXNet makes a HybridBlock but symnet computes in numpy: it may sit in a
    HybridSequential, is not traceable, and takes numpy input too. Subclasses define
    apply(x)."""

    def forward(self, x, *args):
        if isinstance(x, (nd.NDArray, _sym.Symbol)):
            return super().forward(x, *args)
        return self.apply(np.asarray(x))

    def hybridize(self, active=True, **kwargs):
        """Stays imperative (Compose(...).hybridize() hybridizes the others); inside a HybridBlock
        that is traced as one graph it raises NotImplementedError."""

    def hybrid_forward(self, F, x):
        if F is not nd:
            raise NotImplementedError(
                "%s computes in numpy and runs imperatively only: keep it out of hybridized "
                "blocks (symnet has no image operators to trace)" % type(self).__name__)
        return self.apply(x)

    def apply(self, x):
        raise NotImplementedError


def _saturate(values, dtype):
    """Float results back to the image dtype; integers truncate and clip, as MXNet's
    saturate_cast does."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.trunc(values), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def _check_image(x, name, batch=False):
    ndims = (3, 4) if batch else (3,)
    if len(x.shape) not in ndims:
        raise ValueError("%s expects an image of shape (H, W, C)%s, not %s"
                         % (name, " or a batch (N, H, W, C)" if batch else "", tuple(x.shape)))


class Compose(Sequential):
    """Applies transforms in order; a plain callable among them is wrapped in nn.Lambda, so the
    whole still hybridizes (what can be) and collects parameters."""

    def __init__(self, transforms):
        super().__init__()
        for t in transforms:
            self.add(t if isinstance(t, Block) else Lambda(t))


class Cast(HybridBlock):
    """Casts the input to dtype (float32 by default)."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, dtype=self._dtype)


class ToTensor(HybridBlock):
    """(H, W, C) image in [0, 255] -> (C, H, W) float32 in [0, 1]; a batch (N, H, W, C) ->
    (N, C, H, W)."""

    def __init__(self):
        super().__init__()

    def hybrid_forward(self, F, x):
        if F is nd and x.ndim not in (3, 4):
            raise ValueError("ToTensor expects an image (H, W, C) or a batch (N, H, W, C), not "
                             "shape %s" % (x.shape,))
        # (..., H, W, C) -> (..., C, W, H) -> (..., C, H, W), for 3 and 4 dims alike
        x = F.swapaxes(F.cast(x, dtype="float32"), -1, -3)
        return F.swapaxes(x, -1, -2) / 255.0


class Normalize(HybridBlock):
    """(x - mean) / std per channel of a (C, H, W) tensor or (N, C, H, W) batch; mean and std
    are numbers or one value per channel."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    @staticmethod
    def _values(v):
        return [float(v)] if isinstance(v, numeric_types) else [float(a) for a in v]

    def hybrid_forward(self, F, x):
        mean, std = self._values(self._mean), self._values(self._std)
        if F is nd:
            if x.ndim not in (3, 4):
                raise ValueError("Normalize expects a tensor (C, H, W) or a batch (N, C, H, W), "
                                 "not shape %s" % (x.shape,))
            if not np.issubdtype(x.dtype, np.floating):
                raise TypeError("Normalize expects a float tensor, not %s (apply ToTensor or Cast "
                                "first)" % np.dtype(x.dtype).name)
            c = x.shape[-3]
            for name, v in (("mean", mean), ("std", std)):
                if len(v) not in (1, c):
                    raise ValueError("Normalize: %s must have 1 or %d (channels) values for input "
                                     "of shape %s, not %d" % (name, c, x.shape, len(v)))
            m = nd.array(np.array(mean).reshape(-1, 1, 1), dtype=x.dtype)
            s = nd.array(np.array(std).reshape(-1, 1, 1), dtype=x.dtype)
            return nd.broadcast_div(nd.broadcast_sub(x, m), s)
        if len(mean) == 1 and len(std) == 1:
            return (x - mean[0]) / std[0]
        c = max(len(mean), len(std))
        mean, std = mean * (c // len(mean)), std * (c // len(std))
        parts = F.split(x, num_outputs=c, axis=-3)
        return F.concat(*[(parts[i] - mean[i]) / std[i] for i in range(c)], dim=-3)


def _target_size(size, h, w, keep_ratio):
    """MXNet's Resize size rules: an int is the square side, or with keep_ratio the shorter
    side (the longer one scaled and truncated); a tuple is (w, h)."""
    if isinstance(size, numeric_types):
        size = int(size)
        if not keep_ratio:
            return size, size
        if h > w:
            return size, int(h * size / w)
        return int(w * size / h), size
    if len(size) == 1:
        return _target_size(size[0], h, w, keep_ratio)
    return int(size[0]), int(size[1])


class Resize(_NumpyHybridBlock):
    """Resizes an image (H, W, C) or batch (N, H, W, C) to size: an int (a square, or the
    shorter side with keep_ratio=True) or (w, h). interpolation: OpenCV's codes (0 nearest,
    1 bilinear, 2 bicubic, 3 area, 4 lanczos)."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation

    def apply(self, x):
        _check_image(x, "Resize", batch=True)
        arr = _np(x)
        h, w = arr.shape[-3], arr.shape[-2]
        new_w, new_h = _target_size(self._size, h, w, self._keep)
        return _like(x, _image._resize_np(arr, new_w, new_h, self._interpolation))


class CenterCrop(Block):
    """The centre crop of size (w, h) (an int: square); an image smaller than that is cropped
    to its aspect and scaled up."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        self._args = (tuple(size), interpolation)

    def forward(self, x):
        _check_image(x, "CenterCrop")
        out, _ = _image._center_crop_np(_np(x), *self._args)
        return _like(x, out)


class CropResize(_NumpyHybridBlock):
    """The width x height region at (x, y) of an image or batch, resized to size (w, h) when
    given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._box = (int(x), int(y), int(width), int(height))
        if isinstance(size, numeric_types):
            size = (size, size)
        self._size = size
        self._interpolation = 1 if interpolation is None else interpolation

    def apply(self, img):
        _check_image(img, "CropResize", batch=True)
        x0, y0, w, h = self._box
        arr = _np(img)
        H, W = arr.shape[-3], arr.shape[-2]
        if x0 < 0 or y0 < 0 or x0 + w > W or y0 + h > H or w <= 0 or h <= 0:
            raise ValueError("CropResize: the box x=%d y=%d width=%d height=%d does not fit in a "
                             "%d x %d (w x h) image" % (x0, y0, w, h, W, H))
        out = np.ascontiguousarray(arr[..., y0:y0 + h, x0:x0 + w, :])
        if self._size is not None:
            out = _image._resize_np(out, self._size[0], self._size[1], self._interpolation)
        return _like(img, out)


class RandomResizedCrop(Block):
    """A random crop of area fraction in `scale` and aspect ratio (w / h) in `ratio` (drawn
    log-uniformly), resized to size (w, h); after 10 misses, the centre crop."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        self._args = (tuple(size), scale, ratio, interpolation)

    def forward(self, x):
        _check_image(x, "RandomResizedCrop")
        out, _ = _image._random_size_crop_np(_np(x), *self._args)
        return _like(x, out)


class _RandomFlip(_NumpyHybridBlock):
    _axis_from_end = None  # the flipped axis, counted back from the end (channels = 1)

    def apply(self, x):
        _check_image(x, type(self).__name__, batch=True)
        if _random.host_rng().rand() < 0.5:
            axis = len(x.shape) - self._axis_from_end
            if isinstance(x, nd.NDArray):
                return nd.flip(x, axis=axis)
            return np.flip(x, axis=axis).copy()
        return x


class RandomFlipLeftRight(_RandomFlip):
    """Flips the image (or the whole batch) left to right with probability 0.5."""

    _axis_from_end = 2


class RandomFlipTopBottom(_RandomFlip):
    """Flips the image (or the whole batch) top to bottom with probability 0.5."""

    _axis_from_end = 3


_LUMA = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def _brightness(arr, alpha):
    return arr * alpha


def _contrast(arr, alpha):
    mean = float((arr[..., :3] @ _LUMA).mean()) if arr.shape[-1] >= 3 else float(arr.mean())
    return arr * alpha + (1.0 - alpha) * mean


def _saturation(arr, alpha):
    if arr.shape[-1] == 1:
        return arr
    gray = (arr[..., :3] @ _LUMA)[..., None]  # (MXNet 1.9.1's kernel uses 0.114 * blue only)
    return arr * alpha + gray * (1.0 - alpha)


def _hue(arr, alpha):
    """Rotates the hue by (alpha - 1) turns in HLS space (MXNet adds alpha * 360 degrees, the
    same angle modulo a turn)."""
    if arr.shape[-1] == 1:
        return arr
    rgb = arr[..., :3] / 255.0
    maxc, minc = rgb.max(-1), rgb.min(-1)
    light = (maxc + minc) / 2.0
    delta = maxc - minc
    safe = np.where(delta == 0, 1.0, delta)
    sat = np.where(delta == 0, 0.0,
                   np.where(light <= 0.5, delta / np.where(maxc + minc == 0, 1.0, maxc + minc),
                            delta / np.where(2.0 - maxc - minc == 0, 1.0, 2.0 - maxc - minc)))
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    hue = np.where(maxc == r, (g - b) / safe, np.where(maxc == g, 2.0 + (b - r) / safe,
                                                       4.0 + (r - g) / safe))
    hue = np.where(delta == 0, 0.0, hue / 6.0 + (alpha - 1.0)) % 1.0
    m2 = np.where(light <= 0.5, light * (1.0 + sat), light + sat - light * sat)
    m1 = 2.0 * light - m2

    def channel(h):
        h = h % 1.0
        return np.where(h < 1 / 6, m1 + (m2 - m1) * h * 6.0,
                        np.where(h < 0.5, m2, np.where(h < 2 / 3, m1 + (m2 - m1) * (2 / 3 - h) * 6.0,
                                                       m1)))

    out = arr.copy()
    out[..., 0], out[..., 1], out[..., 2] = (channel(hue + 1 / 3) * 255.0, channel(hue) * 255.0,
                                             channel(hue - 1 / 3) * 255.0)
    return out


class _RandomEnhance(_NumpyHybridBlock):
    """Scales one image property by a factor drawn uniformly from
    [max(0, 1 - amount), 1 + amount]."""

    _fn = None

    def __init__(self, amount):
        super().__init__()
        self._range = (max(0.0, 1.0 - amount), 1.0 + amount)

    def apply(self, x):
        _check_image(x, type(self).__name__)
        alpha = _random.host_rng().uniform(*self._range)
        arr = _np(x)
        return _like(x, _saturate(type(self)._fn(arr.astype(np.float32), alpha), arr.dtype))


class RandomBrightness(_RandomEnhance):
    """Multiplies the image by a factor from [max(0, 1 - brightness), 1 + brightness]."""

    _fn = staticmethod(_brightness)


class RandomContrast(_RandomEnhance):
    """Blends the image with its mean gray level, by a factor from [max(0, 1 - contrast),
    1 + contrast]."""

    _fn = staticmethod(_contrast)


class RandomSaturation(_RandomEnhance):
    """Blends each pixel with its gray level, by a factor from [max(0, 1 - saturation),
    1 + saturation]."""

    _fn = staticmethod(_saturation)


class RandomHue(_RandomEnhance):
    """Rotates the hue by (factor - 1) turns, the factor from [max(0, 1 - hue), 1 + hue]."""

    _fn = staticmethod(_hue)


class RandomColorJitter(_NumpyHybridBlock):
    """Brightness, contrast, saturation and hue jitter (each as its Random* transform; zero
    leaves it out), applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._jitters = [(fn, (max(0.0, 1.0 - a), 1.0 + a)) for fn, a in
                         ((_brightness, brightness), (_contrast, contrast),
                          (_saturation, saturation), (_hue, hue)) if a > 0]

    def apply(self, x):
        _check_image(x, "RandomColorJitter")
        rng = _random.host_rng()
        arr = _np(x)
        out = arr.astype(np.float32)
        for k in rng.permutation(len(self._jitters)):
            fn, span = self._jitters[k]
            out = fn(out, rng.uniform(*span))
        return _like(x, _saturate(out, arr.dtype))


class RandomLighting(_NumpyHybridBlock):
    """AlexNet's PCA lighting noise: adds eigvec @ (eigval * a) to every pixel, a ~ N(0,
    alpha^2) per component (ImageNet's RGB eigenvalues and vectors)."""

    _EIGVAL = np.array([55.46, 4.794, 1.148])
    _EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                        [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def apply(self, x):
        _check_image(x, "RandomLighting")
        arr = _np(x)
        if arr.shape[-1] != 3:
            raise ValueError("RandomLighting expects 3 (RGB) channels, not %d" % arr.shape[-1])
        a = _random.host_rng().normal(0.0, self._alpha, size=3)
        rgb = (self._EIGVEC @ (a * self._EIGVAL)).astype(np.float32)
        return _like(x, _saturate(arr.astype(np.float32) + rgb, arr.dtype))


class RandomApply(Sequential):
    """Applies `transforms` (a Block, a callable or a list of them) with probability p, else
    passes x through."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = Compose(transforms) if isinstance(transforms, (list, tuple)) else transforms
        self.p = p

    def forward(self, x):
        if self.p < _random.host_rng().rand():
            return x
        return self.transforms(x)
