"""MXNet 1.9.1's mx.image.detection (alias mx.image.det): augmenters that change an image and its
object boxes together, CreateDetAugmenter, and ImageDetIter.

A detection label is an (objects, width >= 5) array of rows [class, xmin, ymin, xmax, ymax, ...]
with the corners relative to the image size (0..1). In a record or list file it is stored flat
with a header: [header width A, object width B, (A - 2 more header values), objects...], as
tools/im2rec.py --pack-label writes it; ImageDetIter unpacks it and pads a batch's labels with
rows of -1 up to the most objects any image of the data set has.

Random choices are drawn as MXNet's are, from Python's `random` module in the same order, so a
seeded run crops, pads and flips as MXNet's does. The augmenters take an (H, W, C) NDArray or
numpy image and return the same kind; labels are numpy arrays."""
import json
import logging
import math
import random
import warnings
from numbers import Number

import numpy as np

from .. import io
from .. import ndarray as nd
from .image import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug, HueJitterAug,
                    ImageIter, LightingAug, RandomGrayAug, ResizeAug, _as_np, _dumpable, _like, copyMakeBorder,
                    fixed_crop)

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomCropAug",
           "DetRandomPadAug", "CreateMultiRandCropAugmenter", "CreateDetAugmenter", "ImageDetIter"]

class DetAugmenter:
    """The base of the detection augmenters: __call__(src, label) -> (src, label). The keyword
    arguments are kept for dumps() (NDArrays and numpy arrays as lists), as MXNet's."""

    def __init__(self, **kwargs):
        self._kwargs = _dumpable(kwargs)

    def dumps(self):
        """The augmenter as a JSON string: [its lower-case class name, its arguments]."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """An image-classification augmenter (mx.image.Augmenter) used where it leaves the boxes
    as they are (colour, cast, a resize of the whole image)."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError("Borrowing from invalid Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """One augmenter of aug_list, chosen at random (the list is shuffled in place and its first
    one runs, as MXNet's), or none with probability skip_prob (always none for an empty list)."""

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError("Allow DetAugmenter in list only")
        if not aug_list:
            skip_prob = 1
        self.aug_list = aug_list
        self.skip_prob = skip_prob

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Flips the image left-right with probability p, and the boxes with it (the label is
    changed in place, as MXNet's)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = _like(src, np.ascontiguousarray(_as_np(src)[:, ::-1]))
            self._flip_label(label)
        return src, label

    def _flip_label(self, label):
        tmp = 1.0 - label[:, 1]
        label[:, 1] = 1.0 - label[:, 3]
        label[:, 3] = tmp


def _areas(boxes):
    """Areas of (xmin, ymin, xmax, ymax) rows; 0 for empty ones."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _as_range(value, what, aug):
    """A (low, high) pair from a pair or one number (then both ends)."""
    if isinstance(value, (tuple, list)):
        return value
    assert isinstance(value, Number)
    logging.info("Using fixed %s: %s in %s", what, value, aug)
    return (value, value)


def _attempts(aug, height, width):
    """The tries of a random crop or pad of an (height, width) image: up to aug.max_attempts
    draws of an aspect ratio from aug.aspect_ratio_range (a ratio <= 0 wastes its try), each as
    (ratio, height of the least area, height of the largest area, least area, largest area),
    the areas aug.area_range times the image's. No tries when aug is disabled or the image empty."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    min_area = aug.area_range[0] * height * width
    max_area = aug.area_range[1] * height * width
    for _ in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio <= 0:
            continue
        yield (ratio, int(round(math.sqrt(min_area / ratio))), int(round(math.sqrt(max_area / ratio))),
               min_area, max_area)


class DetRandomCropAug(DetAugmenter):
    """A random crop that keeps objects: within max_attempts tries, a crop of area (a fraction
    of the image in area_range) and aspect ratio (width/height in aspect_ratio_range) covering
    more than min_object_covered of every box it touches; boxes left with less than
    min_eject_coverage of their area are dropped. Without such a crop the image stays whole."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect ratio", "DetRandomCropAug")
        area_range = _as_range(area_range, "area range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
                         area_range=area_range, min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn("Skip DetRandomCropAug due to invalid area_range: %s" % (area_range,))
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn("Skip DetRandomCropAug due to invalid aspect_ratio_range: %s" % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _calculate_areas(self, label):
        return _areas(label)

    def _intersect(self, label, xmin, ymin, xmax, ymax):
        """The boxes clipped to the crop (relative corners); all zeros where they miss it."""
        left, right = np.maximum(label[:, 0], xmin), np.minimum(label[:, 2], xmax)
        top, bot = np.maximum(label[:, 1], ymin), np.minimum(label[:, 3], ymax)
        out = label.copy()
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = left, top, right, bot
        out[np.logical_or(left >= right, top >= bot), :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        """Whether the crop (pixels) covers more than min_object_covered of each box it touches
        (boxes of 2 pixels or less do not count), and touches one."""
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        x1, y1 = float(xmin) / width, float(ymin) / height
        x2, y2 = float(xmax) / width, float(ymax) / height
        object_areas = _areas(label[:, 1:])
        valid = np.where(object_areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        intersects = self._intersect(label[valid, 1:], x1, y1, x2, y2)
        coverages = _areas(intersects) / object_areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        """The labels relative to the crop (x, y, w, h in pixels), clipped to it; boxes keeping
        min_eject_coverage or less of their area are dropped (None when none is left)."""
        xmin, ymin = float(crop_box[0]) / width, float(crop_box[1]) / height
        w, h = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] -= xmin
        out[:, (2, 4)] -= ymin
        out[:, (1, 3)] /= w
        out[:, (2, 4)] /= h
        out[:, 1:5] = np.clip(out[:, 1:5], 0, 1)
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2])
        valid = np.where(np.logical_and(valid, coverage > self.min_eject_coverage))[0]
        if valid.size < 1:
            return None
        return out[valid, :]

    def _random_crop_proposal(self, label, height, width):
        """(x, y, w, h, new label) of an acceptable crop, or () after max_attempts tries. The
        draws and roundings are MXNet's, so a seeded `random` gives its crops."""
        for ratio, h, max_h, min_area, max_area in _attempts(self, height, width):
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)  # the largest h whose width fits
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            assert w <= width
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._check_satisfy_constraints(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Places the image at a random spot of a larger canvas (area area_range times the image's,
    aspect ratio in aspect_ratio_range) filled with pad_val, and moves the boxes with it."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0), max_attempts=50,
                 pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            assert isinstance(pad_val, Number)
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect ratio", "DetRandomPadAug")
        area_range = _as_range(area_range, "area range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range, max_attempts=max_attempts,
                         pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid parameters: %s" % (area_range,))
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid aspect_ratio_range: %s" % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width = src.shape[0], src.shape[1]
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) else ()
            value = 0.0 if values else float(self.pad_val)
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 16, value=value, values=values)
        return src, label

    def _update_labels(self, label, pad_box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        """(x, y, w, h, new label) of the canvas, or () after max_attempts tries (a canvas
        less than 2 pixels larger either way is not taken)."""
        for ratio, h, max_h, _, _ in _attempts(self, height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = max(h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return (x, y, w, h, self._update_labels(label, (x, y, w, h), height, width))
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),  # noqa: N802
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50, skip_prob=0):
    """A DetRandomSelectAug over DetRandomCropAugs: each argument may be a list (one crop
    augmenter per entry; lists of one, and single values, apply to all)."""
    params = [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts]
    params = [p if isinstance(p, list) else [p] for p in params]
    num = max(len(p) for p in params)
    for k, p in enumerate(params):
        if len(p) != num:
            assert len(p) == 1
            params[k] = p * num
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0, rand_mirror=False,  # noqa: N802
                       mean=None, std=None, brightness=0, contrast=0, saturation=0, pca_noise=0, hue=0,
                       inter_method=2, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                       area_range=(0.05, 3.0), min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """MXNet's default detection augmenter list, in its order: resize (shorter side), random
    crop (probability rand_crop), mirror, random pad (probability rand_pad; area up to
    area_range[1]), a forced resize to data_shape (3, H, W), a cast to float32, colour jitter,
    hue, PCA lighting noise, random grey, and normalisation (mean/std: arrays, or True for
    ImageNet's)."""
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range, area_range,
                                                    min_eject_coverage, max_attempts, skip_prob=(1 - rand_crop)))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad_aug = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009],
                           [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        auglist.append(DetBorrowAug(LightingAug(pca_noise, eigval, eigvec)))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = np.array([123.68, 116.28, 103.53])
    elif mean is not None:
        assert isinstance(mean, np.ndarray) and mean.shape[0] in [1, 3]
    if std is True:
        std = np.array([58.395, 57.12, 57.375])
    elif std is not None:
        assert isinstance(std, np.ndarray) and std.shape[0] in [1, 3]
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist


class ImageDetIter(ImageIter):
    """Batches of augmented images and their boxes, as mx.image.ImageDetIter: ImageIter's
    sources, shuffling, partitions and last_batch_handle, with detection labels (see the
    module docstring). The label batch is (batch_size, most objects of any image, object
    width), the rows past an image's objects -1. Images whose label has no valid box, or
    whose augmented label has none left, are skipped. Other keyword arguments go to
    CreateDetAugmenter when aug_list is None."""

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name="data", label_name="label", last_batch_handle="pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root, path_imgidx=path_imgidx,
                         shuffle=shuffle, part_index=part_index, num_parts=num_parts, aug_list=[],
                         imglist=imglist, data_name=data_name, label_name=label_name,
                         last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        label_shape = self._estimate_label_shape()
        self.provide_label = [io.DataDesc(label_name, (self.batch_size,) + label_shape, np.float32)]
        self.label_shape = label_shape

    def _check_valid_label(self, label):
        """RuntimeError unless label is (objects, 5+) with a valid box (class >= 0, corners in
        order)."""
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError("Label with shape (1+, 5+) required, %s received." % str(label))
        valid = np.logical_and(label[:, 0] >= 0, label[:, 3] > label[:, 1])
        if not np.logical_and(valid, label[:, 4] > label[:, 2]).any():
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self):
        """(most objects of one image, object width), from one pass over the labels."""
        max_count, width = 0, 0
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count, width = max(max_count, label.shape[0]), label.shape[1]
        except StopIteration:
            pass
        self.reset()
        return (max_count, width)

    def _parse_label(self, label):
        """A flat record label [A, B, header..., objects...] -> the (objects, B) rows with a
        valid box; RuntimeError for a malformed one or one without valid boxes."""
        if isinstance(label, nd.NDArray):
            label = label.asnumpy()
        raw = np.asarray(label).ravel()
        if raw.size < 7:
            raise RuntimeError("Label shape is invalid: " + str(raw.shape))
        header_width, obj_width = int(raw[0]), int(raw[1])
        if (raw.size - header_width) % obj_width != 0:
            raise RuntimeError("Label shape %s inconsistent with annotation width %d." % (str(raw.shape), obj_width))
        out = np.reshape(raw[header_width:], (-1, obj_width))
        valid = np.where(np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2]))[0]
        if valid.size < 1:
            raise RuntimeError("Encounter sample with no valid label.")
        return out[valid, :]

    def reshape(self, data_shape=None, label_shape=None):
        """New data (3, H, W) and/or label (objects, width) shapes for the batches to come; the
        label may hold more objects, never fewer."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.data_shape = tuple(data_shape)
            self.provide_data = [io.DataDesc(self.provide_data[0].name, (self.batch_size,) + self.data_shape,
                                             np.float32)]
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.label_shape = tuple(label_shape)
            self.provide_label = [io.DataDesc(self.provide_label[0].name, (self.batch_size,) + self.label_shape,
                                              np.float32)]

    def check_label_shape(self, label_shape):
        if not len(label_shape) == 2:
            raise ValueError("label_shape should have length 2")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError("Attempts to reduce label count from %d to %d, not allowed."
                             % (self.label_shape[0], label_shape[0]))
        if label_shape[1] != self.provide_label[0].shape[2]:
            raise ValueError("label_shape object width inconsistent: %d vs %d."
                             % (self.provide_label[0].shape[2], label_shape[1]))

    def augmentation_transform(self, data, label):
        """Runs the detection augmenters on one image and its label."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def _new_label_batch(self):
        return np.full(self.provide_label[0].shape, -1, dtype=np.float32)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fills the numpy batch from index start; returns how many are filled (StopIteration
        when the data ended before the first)."""
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping: %s", e)
                    continue
                datum = self.postprocess_data(data)
                batch_data[i] = datum.asnumpy() if isinstance(datum, nd.NDArray) else np.asarray(datum)
                num_object = min(label.shape[0], batch_label.shape[1])
                batch_label[i] = -1
                batch_label[i, :num_object] = label[:num_object, :batch_label.shape[2]]
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True, waitKey=None,  # noqa: N803
                  window_name="draw_next", id2labels=None):
        """Yields the next images, augmented, de-normalised and with their boxes drawn (BGR
        uint8, for OpenCV). Needs OpenCV (cv2), as MXNet's; without it, warns and yields none."""
        try:
            import cv2
        except ImportError as e:
            warnings.warn("Unable to import cv2, skip drawing: %s" % e)
            return
        count = 0
        try:
            while True:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping: %s", e)
                    continue
                count += 1
                data, label = self.augmentation_transform(data, label)
                image = _as_np(data).astype(np.float64)
                if std is True:
                    std = np.array([58.395, 57.12, 57.375])
                if std is not None:
                    image *= std
                if mean is True:
                    mean = np.array([123.68, 116.28, 103.53])
                if mean is not None:
                    image += mean
                image = image[:, :, (2, 1, 0)].copy()
                if clip:
                    image = np.clip(image, 0, 255)
                if color:
                    color = color[::-1]
                image = image.astype(np.uint8)
                height, width = image.shape[0], image.shape[1]
                for row in label:
                    x1 = int(row[1] * width)
                    if x1 < 0:
                        continue
                    y1, x2, y2 = int(row[2] * height), int(row[3] * width), int(row[4] * height)
                    bc = np.random.rand(3) * 255 if not color else color
                    cv2.rectangle(image, (x1, y1), (x2, y2), bc, thickness)
                    if id2labels is not None and int(row[0]) in id2labels:
                        text = "{:s}".format(id2labels[int(row[0])])
                        font = cv2.FONT_HERSHEY_SIMPLEX
                        text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                        cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, 0.5, (255, 255, 255), 2)
                if waitKey is not None:
                    cv2.imshow(window_name, image)
                    cv2.waitKey(waitKey)
                yield image
        except StopIteration:
            if not count:
                return

    def sync_label_shape(self, it, verbose=False):
        """Gives this iterator and `it` (another ImageDetIter, e.g. the validation one) the same
        label shape, the larger object count of the two; returns `it`."""
        assert isinstance(it, ImageDetIter), "Synchronize with invalid iterator."
        train_shape, val_shape = self.label_shape, it.label_shape
        assert train_shape[1] == val_shape[1], "object width mismatch."
        max_count = max(train_shape[0], val_shape[0])
        if max_count > train_shape[0]:
            self.reshape(None, (max_count, train_shape[1]))
        if max_count > val_shape[0]:
            it.reshape(None, (max_count, val_shape[1]))
        if verbose and max_count > min(train_shape[0], val_shape[0]):
            logging.info("Resized label_shape to (%d, %d).", max_count, train_shape[1])
        return it
