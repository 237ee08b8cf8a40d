"""Images (MXNet 1.9.1's mx.image package): decoding, resizing, cropping, the augmenters and
ImageIter in image.py; the detection augmenters and ImageDetIter in detection.py (mx.image.det)."""
from . import detection, image
from . import detection as det
from .detection import *  # noqa: F401,F403
from .image import *  # noqa: F401,F403
# private helpers symnet's gluon transforms share
from .image import (_center_crop_np, _decode_np, _fixed_crop_np, _get_interp_method, _interp_method,  # noqa: F401
                    _random_size_crop_np, _resize_np)
