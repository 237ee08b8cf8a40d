"""MXNet 1.9.1's mx.image.image: decoding, resizing and cropping of (H, W, C) images, the
augmenters (Augmenter and its subclasses, CreateAugmenter) and ImageIter.

The code lives in one module per concept: _functions.py (the image functions), _augmenters.py
(the augmenters and CreateAugmenter) and _image_iter.py (ImageIter). This module is MXNet's
namespace for them all, so `mx.image.image.X` works as in MXNet.
"""
from ._augmenters import (Augmenter, BrightnessJitterAug, CastAug, CenterCropAug, ColorJitterAug, ColorNormalizeAug,
                          ContrastJitterAug, CreateAugmenter, ForceResizeAug, HorizontalFlipAug, HueJitterAug,
                          LightingAug, RandomCropAug, RandomGrayAug, RandomOrderAug, RandomSizedCropAug, ResizeAug,
                          SaturationJitterAug, SequentialAug)
from ._functions import (center_crop, color_normalize, copyMakeBorder, fixed_crop, imdecode, imread, imresize,
                         imrotate, random_crop, random_rotate, random_size_crop, resize_short, scale_down)
from ._image_iter import ImageIter

# private helpers detection.py, the package's __init__ (for gluon's transforms) and other
# libraries (_get_interp_method) import from here
from ._augmenters import _dumpable  # noqa: F401
from ._functions import (_as_np, _center_crop_np, _decode_np, _fixed_crop_np, _get_interp_method,  # noqa: F401
                         _interp_method, _like, _random_size_crop_np, _resize_np)

__all__ = ["imdecode", "imread", "imresize", "resize_short", "scale_down", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "copyMakeBorder",
           "imrotate", "random_rotate"]
__all__ += ["Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
            "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug", "ContrastJitterAug",
            "SaturationJitterAug", "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug",
            "RandomGrayAug", "HorizontalFlipAug", "CastAug", "CreateAugmenter", "ImageIter"]
