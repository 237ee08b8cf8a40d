"""The data half of MXNet's image-classification scripts: the command-line options for the
input images and their augmentations (the option names of MXNet 1.9.1's
example/image-classification/common/data.py), and get_rec_iter(), which turns them into
ImageRecordIter arguments for the training and validation .rec files.

`import mxnet as mx` is symnet here when common/find_mxnet.py was imported first.
"""
import argparse

import numpy as np

import mxnet as mx
from mxnet.io import DataBatch, DataIter


def add_data_args(parser):
    data = parser.add_argument_group("Data", "the input images")
    data.add_argument("--data-train", type=str, help="the training data (.rec)")
    data.add_argument("--data-train-idx", type=str, default="", help="the index (.idx) of the training data")
    data.add_argument("--data-val", type=str, help="the validation data (.rec)")
    data.add_argument("--data-val-idx", type=str, default="", help="the index (.idx) of the validation data")
    data.add_argument("--rgb-mean", type=str, default="123.68,116.779,103.939",
                      help="the mean of each channel (R,G,B), subtracted")
    data.add_argument("--rgb-std", type=str, default="1,1,1",
                      help="the standard deviation of each channel (R,G,B), divided by")
    data.add_argument("--pad-size", type=int, default=0, help="pixels added on every side of the image")
    data.add_argument("--fill-value", type=int, default=127, help="the value of the added pixels")
    data.add_argument("--image-shape", type=str, help="the network's input image, e.g. 3,224,224")
    data.add_argument("--num-classes", type=int, help="the number of classes")
    data.add_argument("--num-examples", type=int, help="the number of training examples")
    data.add_argument("--data-nthreads", type=int, default=4, help="threads decoding the images")
    data.add_argument("--benchmark", type=int, default=0, help="1: feed the network synthetic data")
    data.add_argument("--input-layout", type=str, default="NCHW",
                      help="the layout of the input data (ImageRecordIter gives NCHW)")
    return data


class SetResnetAugAction(argparse.Action):
    """--set-resnet-aug: the usual augmentations of ResNet training on ImageNet."""

    def __init__(self, nargs=0, **kwargs):
        if nargs != 0:
            raise ValueError("--set-resnet-aug takes no value")
        super().__init__(nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        for key, value in RESNET_AUG.items():
            setattr(namespace, key, value)
        setattr(namespace, self.dest, 1)


# random resized crop (8% to 100% of the area, aspect 3/4 to 4/3), mirror, colour jitter, PCA
RESNET_AUG = dict(random_crop=0, random_resized_crop=1, random_mirror=1, min_random_area=0.08,
                  max_random_aspect_ratio=4.0 / 3.0, min_random_aspect_ratio=3.0 / 4.0, brightness=0.4,
                  contrast=0.4, saturation=0.4, pca_noise=0.1)


def set_resnet_aug(aug):
    """The same as defaults of a parser (for a training script)."""
    aug.set_defaults(**RESNET_AUG)


def _aug_level(level):
    """Augmentation level 1: random crop and mirror; 2: + colour (HSL); 3: + rotation, shear and
    aspect."""
    out = {}
    if level >= 1:
        out.update(random_crop=1, random_mirror=1)
    if level >= 2:
        out.update(max_random_h=36, max_random_s=50, max_random_l=50)
    if level >= 3:
        out.update(max_random_rotate_angle=10, max_random_shear_ratio=0.1, max_random_aspect_ratio=0.25)
    return out


class SetDataAugLevelAction(argparse.Action):
    """--set-data-aug-level N: the augmentations of level N (see _aug_level)."""

    def __init__(self, option_strings, dest, nargs=None, **kwargs):
        if nargs is not None:
            raise ValueError("--set-data-aug-level takes one value")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        for key, value in _aug_level(values).items():
            setattr(namespace, key, value)


def set_data_aug_level(aug, level):
    """The same as defaults of a parser (for a training script)."""
    aug.set_defaults(**_aug_level(level))


def add_data_aug_args(parser):
    aug = parser.add_argument_group("Image augmentations", "ImageRecordIter's default augmenter")
    aug.add_argument("--random-crop", type=int, default=0, help="1: crop at a random position")
    aug.add_argument("--random-mirror", type=int, default=0, help="1: flip half of the images left to right")
    aug.add_argument("--max-random-h", type=int, default=0, help="largest hue change, in [0, 180]")
    aug.add_argument("--max-random-s", type=int, default=0, help="largest saturation change, in [0, 255]")
    aug.add_argument("--max-random-l", type=int, default=0, help="largest lightness change, in [0, 255]")
    aug.add_argument("--min-random-aspect-ratio", type=float, default=None,
                     help="lowest aspect ratio (width / height), None or positive")
    aug.add_argument("--max-random-aspect-ratio", type=float, default=0,
                     help="highest aspect ratio; without --min-random-aspect-ratio the range is "
                          "[1 - this, 1 + this]")
    aug.add_argument("--max-random-rotate-angle", type=int, default=0, help="largest rotation, in [0, 360]")
    aug.add_argument("--max-random-shear-ratio", type=float, default=0, help="largest shear, in [0, 1]")
    aug.add_argument("--max-random-scale", type=float, default=1, help="largest scale factor")
    aug.add_argument("--min-random-scale", type=float, default=1,
                     help="smallest scale factor (at least image size / input size, or use --pad-size)")
    aug.add_argument("--max-random-area", type=float, default=1,
                     help="largest area of a random resized crop, as a fraction of the image")
    aug.add_argument("--min-random-area", type=float, default=1,
                     help="smallest area of a random resized crop, as a fraction of the image")
    aug.add_argument("--min-crop-size", type=int, default=-1,
                     help="smallest side of a random square crop (with --max-crop-size)")
    aug.add_argument("--max-crop-size", type=int, default=-1, help="largest side of a random square crop")
    aug.add_argument("--brightness", type=float, default=0, help="brightness jitter, in [0, 1]")
    aug.add_argument("--contrast", type=float, default=0, help="contrast jitter, in [0, 1]")
    aug.add_argument("--saturation", type=float, default=0, help="saturation jitter, in [0, 1]")
    aug.add_argument("--pca-noise", type=float, default=0, help="PCA lighting noise, in [0, 1]")
    aug.add_argument("--random-resized-crop", type=int, default=0, help="1: random resized crop")
    aug.add_argument("--set-resnet-aug", action=SetResnetAugAction,
                     help="the usual ResNet augmentations (see RESNET_AUG)")
    aug.add_argument("--set-data-aug-level", type=int, default=None, action=SetDataAugLevelAction,
                     help="augmentations by level 1-3 (see _aug_level)")
    return aug


class SyntheticDataIter(DataIter):
    """Random data of the right shape, max_iter batches per epoch (for --benchmark 1)."""

    def __init__(self, num_classes, data_shape, max_iter, dtype):
        super().__init__(data_shape[0])
        self.cur_iter, self.max_iter, self.dtype = 0, max_iter, dtype
        label = np.random.randint(0, num_classes, [self.batch_size])
        data = np.random.uniform(-1, 1, data_shape)
        self.data = mx.nd.array(data, dtype=self.dtype, ctx=mx.Context("cpu_pinned", 0))
        self.label = mx.nd.array(label, dtype=self.dtype, ctx=mx.Context("cpu_pinned", 0))

    @property
    def provide_data(self):
        return [mx.io.DataDesc("data", self.data.shape, self.dtype)]

    @property
    def provide_label(self):
        return [mx.io.DataDesc("softmax_label", (self.batch_size,), self.dtype)]

    def next(self):
        self.cur_iter += 1
        if self.cur_iter > self.max_iter:
            raise StopIteration
        return DataBatch(data=(self.data,), label=(self.label,), pad=0, index=None,
                         provide_data=self.provide_data, provide_label=self.provide_label)

    def __next__(self):
        return self.next()

    def reset(self):
        self.cur_iter = 0


def get_rec_iter(args, kv=None):
    """(train, val) ImageRecordIters for args.data_train and args.data_val (None without it); with
    a distributed kvstore each worker reads its part."""
    image_shape = tuple(int(v) for v in args.image_shape.split(","))
    if "benchmark" in args and args.benchmark:
        shape = (args.batch_size,) + image_shape
        return SyntheticDataIter(args.num_classes, shape, max(1, args.num_examples // args.batch_size),
                                 np.float32), None
    if getattr(args, "input_layout", "NCHW") != "NCHW":
        raise ValueError("ImageRecordIter gives NCHW data, not --input-layout %s" % args.input_layout)
    rank, nworker = (kv.rank, kv.num_workers) if kv else (0, 1)
    rgb_mean = [float(v) for v in args.rgb_mean.split(",")]
    rgb_std = [float(v) for v in args.rgb_std.split(",")]
    normalize = dict(mean_r=rgb_mean[0], mean_g=rgb_mean[1], mean_b=rgb_mean[2],
                     std_r=rgb_std[0], std_g=rgb_std[1], std_b=rgb_std[2])
    train = mx.io.ImageRecordIter(
        path_imgrec=args.data_train,
        path_imgidx=args.data_train_idx,
        label_width=1,
        data_name="data",
        label_name="softmax_label",
        data_shape=image_shape,
        batch_size=args.batch_size,
        rand_crop=args.random_crop,
        max_random_scale=args.max_random_scale,
        pad=args.pad_size,
        fill_value=args.fill_value,
        random_resized_crop=args.random_resized_crop,
        min_random_scale=args.min_random_scale,
        max_aspect_ratio=args.max_random_aspect_ratio,
        min_aspect_ratio=args.min_random_aspect_ratio,
        max_random_area=args.max_random_area,
        min_random_area=args.min_random_area,
        min_crop_size=args.min_crop_size,
        max_crop_size=args.max_crop_size,
        brightness=args.brightness,
        contrast=args.contrast,
        saturation=args.saturation,
        pca_noise=args.pca_noise,
        random_h=args.max_random_h,
        random_s=args.max_random_s,
        random_l=args.max_random_l,
        max_rotate_angle=args.max_random_rotate_angle,
        max_shear_ratio=args.max_random_shear_ratio,
        rand_mirror=args.random_mirror,
        preprocess_threads=args.data_nthreads,
        shuffle=True,
        num_parts=nworker,
        part_index=rank,
        **normalize)
    if args.data_val is None:
        return train, None
    val = mx.io.ImageRecordIter(
        path_imgrec=args.data_val,
        path_imgidx=args.data_val_idx,
        label_width=1,
        data_name="data",
        label_name="softmax_label",
        batch_size=args.batch_size,
        round_batch=False,
        data_shape=image_shape,
        preprocess_threads=args.data_nthreads,
        rand_crop=False,
        rand_mirror=False,
        num_parts=nworker,
        part_index=rank,
        **normalize)
    return train, val
