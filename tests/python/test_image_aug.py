"""mx.image's augmenters, CreateAugmenter and ImageIter (python/symnet/image/image.py).

MXNet parity (tests/mxnet_parity/make_references.py: image_aug_refs): every augmenter, four
CreateAugmenter lists and five ImageIter setups on the same images, seeded the way MXNet draws
(Python's random and numpy's global generator), so the random ones are compared too. The
outputs are equal except where a bicubic or Lanczos resize rounds a uint8 pixel the other way
(OpenCV's fixed-point kernels; at most 1) and where MXNet multiplies by a colour matrix through
the BLAS (hue, grey: within 16 float32 ulps of the image's largest value, see BLAS_ULPS). The
rest checks the math against numpy, the statistics of the random augmenters, the errors, and
ImageIter feeding Module.fit."""
import json
import os
import random
import sys

import numpy as np
import pytest

import symnet as mx
from parity_checks import REFS, ref_file
from record_files import random_images_rec

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "example")

# cases whose resizes use bicubic or Lanczos (or may, with interp=10): a uint8 pixel may be 1 off
RESAMPLED = {"force_resize_2", "force_resize_4", "force_resize_up_bicubic", "resize_short_random_interp",
             "create:random_interp"}
# augmenters MXNet applies with nd.dot, a float32 (H*W, 3) x (3, 3) product through the
# OpenBLAS it ships: HueJitterAug's YIQ rotation and RandomGrayAug's mix. How that rounds depends
# on the kernel OpenBLAS picks for the CPU. Ours adds the three products in order without FMA, as
# its generic Prescott kernel does (what it falls back to on CPUs it does not know); on an AMD
# Zen 4 it picks its Zen kernel (FMA), and 685 of the 3420 hue elements differed by up to 3e-6
# of their value. OPENBLAS_CORETYPE=Zen (or Haswell, SkylakeX) gives those references on any x86
# CPU: hue, both grey cases and the CreateAugmenter lists with hue or grey differ, nothing else.
# Such a difference scales with the terms (|pixel| * |matrix entry|), not with each result, which
# cancellation can make small: element-wise it reaches 1.2e-4 relative, so these cases compare
# norm-wise, |ours - MXNet's| <= BLAS_ULPS float32 ulps (eps) of the array's largest magnitude.
# Measured between the kernels: at most 1.01 such ulps for one product, 2.43 after the rest of
# CreateAugmenter's "everything" list (lighting, grey, normalization); the bound of a three-term
# dot product, 2 * gamma_3 * |x| . |m| (Higham), is 3-5.5 for these matrices. 16 ulps is 5e-4 on
# the hue images (largest value ~260), while a hue alpha 1e-3 off (of its 0.4 range) moves
# pixels by up to 0.5-1 and an output 1e-3 off is caught too. Everything else (uint8 results,
# the float paths without a matrix product) stays bit-equal.
MATRIX_AUGMENTERS = ("HueJitterAug", "RandomGrayAug")
BLAS_ULPS = 16


def _value(v):
    """An augmenter argument as the references store it (see _aug_value there)."""
    if isinstance(v, dict) and "nd" in v:
        return mx.nd.array(v["nd"])
    if isinstance(v, dict) and "np" in v:
        return np.array(v["np"])
    if isinstance(v, list):
        return tuple(v)
    return v


def _seed(s):
    random.seed(s)
    np.random.seed(s)


def _uses_matrix(dumps):
    """Whether an augmenter (its dumps(), or CreateAugmenter's list of them) multiplies by a
    colour matrix the way MXNet does through the BLAS (MATRIX_AUGMENTERS)."""
    text = json.dumps(dumps)  # (nested ones are JSON strings inside: their names show as well)
    return any(a.lower() in text for a in MATRIX_AUGMENTERS)


def _same(ours, theirs, what, resampled=False, blas=False):
    assert ours.shape == theirs.shape, "%s: shape %s, MXNet %s" % (what, ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, "%s: dtype %s, MXNet %s" % (what, ours.dtype, theirs.dtype)
    if resampled:
        np.testing.assert_allclose(ours.astype(np.float64), theirs, rtol=0, atol=1.0, err_msg=what)
    elif blas:
        assert theirs.dtype == np.float32, "%s: a colour matrix product gives float32, not %s" % (what, theirs.dtype)
        atol = BLAS_ULPS * float(np.finfo(np.float32).eps) * float(np.abs(theirs).max())
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=atol,
                                   err_msg="%s (through MXNet's BLAS: within %d ulps of the largest value)"
                                   % (what, BLAS_ULPS))
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=what)


@pytest.fixture(scope="module")
def refs():
    with open(ref_file("image_aug.json")) as f:
        meta = json.load(f)
    arrays = np.load(ref_file("image_aug.npz"))
    return meta, arrays


def test_augmenters_match_mxnet(refs):
    meta, arrays = refs
    inputs = [arrays["input:0"], arrays["input:1"]]
    assert len(meta["aug_cases"]) == 29
    for case in meta["aug_cases"]:
        aug = getattr(mx.image, case["class"])(**{k: _value(v) for k, v in case["kwargs"].items()})
        _seed(case["seed"])
        for c in range(case["calls"]):
            src = mx.nd.array(inputs[c % 2], dtype="float32" if case["float"] else "uint8")
            out = aug(src)
            assert isinstance(out, mx.nd.NDArray)
            _same(out.asnumpy(), arrays["aug:%s:%d" % (case["name"], c)], "%s call %d" % (case["name"], c),
                  case["name"] in RESAMPLED, _uses_matrix(case["dumps"]))
        # (after the calls: ColorJitterAug's list is in the order its last call shuffled it to)
        assert aug.dumps() == case["dumps"], case["name"]


def test_create_augmenter_matches_mxnet(refs):
    meta, arrays = refs
    inputs = [arrays["input:0"], arrays["input:1"]]
    for case in meta["create_cases"]:
        augs = mx.image.CreateAugmenter((3, 16, 16), **{k: _value(v) for k, v in case["kwargs"].items()})
        assert [a.dumps() for a in augs] == case["dumps"], case["name"]
        _seed(case["seed"])
        for c in range(case["calls"]):
            x = inputs[c % 2]  # numpy in, numpy out: the path ImageIter takes
            for a in augs:
                x = a(x)
            _same(x, arrays["create:%s:%d" % (case["name"], c)], "CreateAugmenter %s call %d" % (case["name"], c),
                  "create:" + case["name"] in RESAMPLED, _uses_matrix(case["dumps"]))


def test_image_iter_matches_mxnet(refs):
    meta, arrays = refs
    folder = os.path.join(REFS, "image_aug")
    for case in meta["iter_cases"]:
        kw = case["kwargs"]
        args = {k: _value(v) for k, v in kw.items() if k not in ("idx", "list")}
        args["data_shape"] = tuple(kw["data_shape"])
        if kw.get("list"):
            args.update(path_imglist=os.path.join(folder, "images.lst"), path_root=folder)
        else:
            args["path_imgrec"] = os.path.join(folder, "images.rec")
            if kw.get("idx"):
                args["path_imgidx"] = os.path.join(folder, "images.idx")
        _seed(case["seed"])
        it = mx.image.ImageIter(**args)
        for e in range(case["epochs"]):
            batches = list(it)
            it.reset()
            pads = [b.pad for b in batches]
            want = case["pads"][e]
            if kw.get("last_batch_handle") == "roll_over" and e:
                # a rolled-over batch holds only real images: pad 0 here, MXNet counts the
                # images it added (the one difference, on purpose)
                want = [0] + want[1:]
            assert pads == want, "%s epoch %d" % (case["name"], e)
            for b, batch in enumerate(batches):
                where = "ImageIter %s epoch %d batch %d" % (case["name"], e, b)
                _same(batch.data[0].asnumpy(), arrays["iter:%s:%d:%d:data" % (case["name"], e, b)], where)
                _same(batch.label[0].asnumpy(), arrays["iter:%s:%d:%d:label" % (case["name"], e, b)], where)


# ---- the math, against numpy ------------------------------------------------------------------------

def _image(h=20, w=24, seed=0):
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def _alpha(seed, lo, hi):
    """The first random.uniform(lo, hi) after random.seed(seed)."""
    random.seed(seed)
    return random.uniform(lo, hi)


def test_colour_augmenters_follow_mxnets_formulas():
    img = _image().astype(np.float32)
    f32 = np.float32
    a = 1.0 + _alpha(3, -0.4, 0.4)
    _seed(3)
    np.testing.assert_array_equal(mx.image.BrightnessJitterAug(0.4)(img), img * f32(a))
    luma = np.array([0.299, 0.587, 0.114], np.float32)
    _seed(4)
    out = mx.image.ContrastJitterAug(0.4)(img)
    a = 1.0 + _alpha(4, -0.4, 0.4)
    mean_gray = (img * luma).astype(np.float64).sum() / img.size * 3
    np.testing.assert_allclose(out, img * a + (1 - a) * mean_gray, rtol=1e-5)
    _seed(5)
    out = mx.image.SaturationJitterAug(0.4)(img)
    a = 1.0 + _alpha(5, -0.4, 0.4)
    gray = (img * luma).sum(axis=2, keepdims=True)
    np.testing.assert_allclose(out, img * a + (1 - a) * gray, rtol=1e-5, atol=1e-4)
    # hue: a rotation of the chroma in YIQ space; greys stay (nearly: MXNet's YIQ matrices are
    # rounded to 3 digits, not exact inverses) grey, and the luma stays
    grey = np.repeat(np.linspace(0, 255, 20, dtype=np.float32)[:, None, None], 3, axis=2)
    _seed(6)
    np.testing.assert_allclose(mx.image.HueJitterAug(0.5)(grey), grey, rtol=5e-3, atol=0.01)
    _seed(6)
    out = mx.image.HueJitterAug(0.5)(img)
    np.testing.assert_allclose((out * luma).sum(axis=2), (img * luma).sum(axis=2), rtol=5e-3, atol=0.5)
    assert np.abs(out - img).max() > 5
    _seed(7)
    assert np.abs(mx.image.HueJitterAug(0.0)(img) - img).max() < 1.0
    # lighting: eigvec . (alpha * eigval), alpha ~ N(0, alphastd) from numpy's generator
    eigval = np.array([55.46, 4.794, 1.148])
    eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])
    np.random.seed(8)
    alpha = np.random.normal(0, 0.1, size=3)
    np.random.seed(8)
    out = mx.image.LightingAug(0.1, eigval, eigvec)(img)
    np.testing.assert_array_equal(out, img + (eigvec * alpha).dot(eigval).astype(np.float32))
    # grey: every channel 0.21 R + 0.72 G + 0.07 B
    out = mx.image.RandomGrayAug(1.0)(img)
    want = img[:, :, 0] * 0.21 + img[:, :, 1] * 0.72 + img[:, :, 2] * 0.07
    for c in range(3):
        np.testing.assert_allclose(out[:, :, c], want, rtol=1e-5)
    np.testing.assert_array_equal(mx.image.RandomGrayAug(0.0)(img), img)
    mean, std = np.array([120.0, 110.0, 100.0]), np.array([50.0, 60.0, 70.0])
    out = mx.image.ColorNormalizeAug(mean, std)(mx.nd.array(img))
    np.testing.assert_allclose(out.asnumpy(), (img - mean) / std, rtol=1e-5)
    # integer images are made float32 first (MXNet would compute in uint8)
    assert mx.image.BrightnessJitterAug(0.1)(_image()).dtype == np.float32


def test_geometric_augmenters():
    img = _image(20, 30)
    assert mx.image.ResizeAug(10)(img).shape == (10, 15, 3)
    assert mx.image.ResizeAug(10)(_image(30, 20)).shape == (15, 10, 3)
    assert mx.image.ForceResizeAug((7, 9))(img).shape == (9, 7, 3)
    np.testing.assert_array_equal(mx.image.CenterCropAug((10, 8))(img), img[6:14, 10:20])
    assert mx.image.CenterCropAug((60, 40), interp=1)(img).shape == (40, 60, 3)  # scaled up
    np.testing.assert_array_equal(mx.image.HorizontalFlipAug(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(mx.image.HorizontalFlipAug(0.0)(img), img)
    out = mx.image.CastAug()(img)
    assert out.dtype == np.float32 and np.array_equal(out, img)
    assert mx.image.CastAug("float16")(mx.nd.array(img, dtype="uint8")).dtype == np.float16
    # a random crop is a window of the image, drawn with Python's random as MXNet's
    _seed(9)
    out = mx.image.RandomCropAug((12, 8))(img)
    random.seed(9)
    x0, y0 = random.randint(0, 18), random.randint(0, 12)
    np.testing.assert_array_equal(out, img[y0:y0 + 8, x0:x0 + 12])
    for seed in range(20):
        _seed(seed)
        out = mx.image.RandomSizedCropAug((16, 16), (0.1, 1.0), (0.5, 2.0), interp=1)(img)
        assert out.shape == (16, 16, 3) and out.dtype == np.uint8
    with pytest.warns(DeprecationWarning):
        aug = mx.image.RandomSizedCropAug((16, 16), None, (0.5, 2.0), min_area=0.3)
    assert aug.area == 0.3
    with pytest.raises(TypeError, match="unexpected arguments"):
        mx.image.RandomSizedCropAug((16, 16), 0.3, (0.5, 2.0), bogus=1)
    with pytest.raises(ValueError, match=r"RandomCropAug: expected an \(H, W, C\) image"):
        mx.image.RandomCropAug((4, 4))(np.zeros((5, 5)))


def test_random_augmenters_vary_stay_in_range_and_reproduce():
    img = _image().astype(np.float32)
    augs = [mx.image.BrightnessJitterAug(0.3), mx.image.ContrastJitterAug(0.3), mx.image.SaturationJitterAug(0.3),
            mx.image.HueJitterAug(0.3), mx.image.ColorJitterAug(0.3, 0.3, 0.3),
            mx.image.LightingAug(0.1, np.array([55.46, 4.794, 1.148]), np.eye(3)), mx.image.RandomGrayAug(0.5),
            mx.image.HorizontalFlipAug(0.5), mx.image.RandomCropAug((10, 10)),
            mx.image.RandomSizedCropAug((10, 10), 0.2, (0.75, 1.33)), mx.image.ResizeAug(15, interp=10)]
    for aug in augs:
        _seed(1)
        first = [aug(img.copy()) for _ in range(8)]
        _seed(1)
        again = [aug(img.copy()) for _ in range(8)]
        name = type(aug).__name__
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b, err_msg=name)  # the seeds reproduce
        assert len({x.tobytes() for x in first}) > 1, name  # and the draws vary
    # brightness factors stay within 1 +- 0.3; the flip rate is about p
    _seed(2)
    ratios = [float(mx.image.BrightnessJitterAug(0.3)(img)[0, 0, 0] / img[0, 0, 0]) for _ in range(300)]
    assert 0.7 <= min(ratios) < 0.75 and 1.25 < max(ratios) <= 1.3
    _seed(3)
    flip = mx.image.HorizontalFlipAug(0.3)
    flips = sum(not np.array_equal(flip(img), img) for _ in range(1000))
    assert 240 < flips < 360
    # RandomOrderAug reorders its list (in place, as MXNet's)
    ts = [mx.image.CastAug(), mx.image.HorizontalFlipAug(0), mx.image.RandomGrayAug(0)]
    order = mx.image.RandomOrderAug(list(ts))
    seen = set()
    for _ in range(30):
        order(img)
        seen.add(tuple(id(t) for t in order.ts))
    assert len(seen) == 6


def test_dumps_and_create_augmenter():
    assert mx.image.ResizeAug(10).dumps() == '["resizeaug", {"size": 10, "interp": 2}]'
    assert json.loads(mx.image.LightingAug(0.1, np.ones(3), np.eye(3)).dumps())[1]["eigvec"][0] == [1, 0, 0]
    assert json.loads(mx.image.ColorNormalizeAug(mx.nd.array([1, 2, 3]), None).dumps()) == \
        ["colornormalizeaug", {"mean": [1.0, 2.0, 3.0], "std": None}]
    jitter = mx.image.ColorJitterAug(0.1, 0, 0.2)
    assert jitter.dumps() == ["colorjitteraug", ['["brightnessjitteraug", {"brightness": 0.1}]',
                                                 '["saturationjitteraug", {"saturation": 0.2}]']]
    assert mx.image.SequentialAug([mx.image.CastAug()]).dumps() == \
        ["sequentialaug", ['["castaug", {"type": "float32"}]']]
    augs = mx.image.CreateAugmenter((3, 24, 32), resize=40, rand_crop=True, rand_resize=True, rand_mirror=True,
                                    mean=True, std=True, brightness=0.1, contrast=0.1, saturation=0.1, hue=0.1,
                                    pca_noise=0.1, rand_gray=0.1, inter_method=1)
    assert [type(a).__name__ for a in augs] == [
        "ResizeAug", "RandomSizedCropAug", "HorizontalFlipAug", "CastAug", "ColorJitterAug", "HueJitterAug",
        "LightingAug", "RandomGrayAug", "ColorNormalizeAug"]
    assert augs[1].size == (32, 24) and augs[1].area == 0.08 and augs[0].interp == 1
    np.testing.assert_allclose(augs[-1].mean.asnumpy(), [123.68, 116.28, 103.53], rtol=1e-6)
    np.testing.assert_allclose(augs[-1].std.asnumpy(), [58.395, 57.12, 57.375], rtol=1e-6)
    assert [type(a).__name__ for a in mx.image.CreateAugmenter((3, 8, 8))] == ["CenterCropAug", "CastAug"]
    assert [type(a).__name__ for a in mx.image.CreateAugmenter((3, 8, 8), rand_crop=True, std=np.ones(3))] == \
        ["RandomCropAug", "CastAug", "ColorNormalizeAug"]
    with pytest.raises(ValueError, match="rand_resize=True needs rand_crop=True"):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)
    with pytest.raises(ValueError, match="mean must be True, None or a numpy array / NDArray of 1 or 3 values"):
        mx.image.CreateAugmenter((3, 8, 8), mean=[1, 2, 3])
    with pytest.raises(ValueError, match="std must be"):
        mx.image.CreateAugmenter((3, 8, 8), std=np.ones(4))


def test_nearest_resize_samples_as_opencv():
    """OpenCV's INTER_NEAREST (MXNet's interp=0) takes source pixel floor(x * (1 / (dst / src))),
    the scale inverted in double: where x * src / dst is a whole number the inverted scale lands
    just below it (14 -> 18 columns, x = 9: 6.999999999999999) and OpenCV takes the pixel before
    (6, not 7). floor(x * (src / dst)) takes the other pixel for 80 of the size pairs from 2 to
    60; MXNet 1.9.1 gives the inverted-scale pixels for all of them (checked in its venv)."""
    bad = []
    for n_in in range(2, 61):
        row = np.arange(n_in, dtype=np.uint8).reshape(1, n_in, 1).repeat(3, axis=2)
        for n_out in range(2, 61):
            got = mx.image.imresize(row, n_out, 1, interp=0)[0, :, 0].astype(int)
            want = np.minimum(np.floor(np.arange(n_out) * (1.0 / (n_out / n_in))).astype(int), n_in - 1)
            if not np.array_equal(got, want):
                bad.append((n_in, n_out))
    assert not bad, "nearest resize picks other columns than OpenCV for %d size pairs, e.g. %s" % (
        len(bad), bad[:4])


# ---- ImageIter ------------------------------------------------------------------------------------

def _png_files(folder, n):
    from PIL import Image
    rng = np.random.RandomState(4)
    names = []
    for i in range(n):
        name = "img%d.png" % i
        Image.fromarray(rng.randint(0, 256, (18 + i, 20, 3)).astype(np.uint8)).save(folder / name)
        names.append(name)
    return names


def test_image_iter_batches_pads_and_partitions(tmp_path):
    pytest.importorskip("PIL")
    rec = random_images_rec(tmp_path, 10, classes=10, size=20)
    idx = rec[:-4] + ".idx"
    it = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=rec, path_imgidx=idx)
    assert it.provide_data[0].shape == (4, 3, 16, 16) and it.provide_label[0].shape == (4,)
    assert it.num_data == 10
    for _ in range(2):  # pad: the last batch is completed from the start
        got = [(b.label[0].asnumpy().tolist(), b.pad) for b in it]
        assert got == [([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0), ([8, 9, 0, 1], 2)]
        it.reset()
    batch = it.next()
    assert batch.data[0].dtype == np.float32 and batch.data[0].shape == (4, 3, 16, 16)
    decoded = mx.image.imdecode(mx.recordio.unpack(mx.recordio.MXIndexedRecordIO(idx, rec, "r").read_idx(0))[1])
    np.testing.assert_array_equal(batch.data[0].asnumpy()[0], decoded.asnumpy()[2:18, 2:18].transpose(2, 0, 1))
    it = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=rec, last_batch_handle="discard")
    assert [b.label[0].asnumpy().tolist() for b in it] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    it = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=rec, last_batch_handle="roll_over")
    epochs = []
    for _ in range(3):
        epochs.append([(b.label[0].asnumpy().tolist(), b.pad) for b in it])
        it.reset()
    # roll_over: 8 and 9 open the second epoch, which then ends exactly; the third starts afresh
    assert epochs == [[([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0)],
                      [([8, 9, 0, 1], 0), ([2, 3, 4, 5], 0), ([6, 7, 8, 9], 0)],
                      [([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0)]]
    it.hard_reset()
    assert it.next().label[0].asnumpy().tolist() == [0, 1, 2, 3]
    # parts: contiguous equal shares; shuffle: Python's random, reproducible after random.seed
    parts = [[v for b in mx.image.ImageIter(batch_size=2, data_shape=(3, 16, 16), path_imgrec=rec, path_imgidx=idx,
                                            num_parts=3, part_index=p, last_batch_handle="discard")
              for v in b.label[0].asnumpy().tolist()] for p in range(3)]
    assert parts == [[0, 1], [3, 4], [6, 7]]
    orders = []
    for _ in range(2):
        random.seed(5)
        it = mx.image.ImageIter(batch_size=5, data_shape=(3, 16, 16), path_imgrec=rec, path_imgidx=idx, shuffle=True)
        orders.append([v for b in it for v in b.label[0].asnumpy().tolist()])
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(10)) and orders[0] != list(range(10))


def test_image_iter_reads_image_files_and_lists(tmp_path):
    pytest.importorskip("PIL")
    names = _png_files(tmp_path, 5)
    (tmp_path / "l.lst").write_text("".join("%d\t%d\t%.1f\t%s\n" % (i, i, i / 2, n) for i, n in enumerate(names)))
    it = mx.image.ImageIter(batch_size=2, data_shape=(3, 16, 16), label_width=2, path_imglist=str(tmp_path / "l.lst"),
                            path_root=str(tmp_path))
    assert it.provide_label[0].shape == (2, 2)
    labels = [b.label[0].asnumpy().tolist() for b in it]
    assert labels == [[[0, 0], [1, 0.5]], [[2, 1], [3, 1.5]], [[4, 2], [0, 0]]]
    imglist = [[float(i), n] for i, n in enumerate(names)]
    it = mx.image.ImageIter(batch_size=5, data_shape=(3, 16, 16), imglist=imglist, path_root=str(tmp_path),
                            aug_list=[mx.image.ForceResizeAug((16, 16))])
    batch = it.next()
    assert batch.label[0].asnumpy().tolist() == [0, 1, 2, 3, 4]
    want = mx.image.imresize(mx.image.imread(str(tmp_path / names[3])), 16, 16, interp=2).asnumpy()
    np.testing.assert_array_equal(batch.data[0].asnumpy()[3], want.transpose(2, 0, 1))
    # int32 list labels are read as integers (the batch stays float32, as MXNet's)
    (tmp_path / "f.lst").write_text("0\t1.7\t%s\n" % names[0])
    it = mx.image.ImageIter(batch_size=1, data_shape=(3, 16, 16), path_imglist=str(tmp_path / "f.lst"),
                            path_root=str(tmp_path), dtype="int32")
    b = it.next()
    assert b.label[0].dtype == np.float32 and b.label[0].asnumpy().tolist() == [1.0]


class _NDArrayOnly(mx.image.Augmenter):
    """A user augmenter written for NDArrays (as MXNet scripts have them)."""

    def __call__(self, src):
        assert isinstance(src, mx.nd.NDArray)
        return mx.nd.flip(src, axis=0)


class _Tagged(mx.image.ImageIter):
    def postprocess_data(self, datum):
        return mx.nd.transpose(datum, axes=(2, 0, 1)) * 0 + 7


def test_image_iter_hooks_and_custom_augmenters(tmp_path):
    pytest.importorskip("PIL")
    rec = random_images_rec(tmp_path, 4, size=16)
    plain = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=rec).next().data[0].asnumpy()
    custom = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=rec,
                                aug_list=[_NDArrayOnly(), mx.image.CastAug()]).next().data[0].asnumpy()
    np.testing.assert_array_equal(custom, plain[:, :, ::-1, :])
    seq = mx.image.SequentialAug([_NDArrayOnly(), mx.image.HorizontalFlipAug(1.0)])
    out = mx.image.ImageIter(batch_size=4, data_shape=(3, 16, 16), path_imgrec=rec, aug_list=[seq]).next()
    np.testing.assert_array_equal(out.data[0].asnumpy(), plain[:, :, ::-1, ::-1])
    tagged = _Tagged(batch_size=2, data_shape=(3, 16, 16), path_imgrec=rec).next()
    assert (tagged.data[0].asnumpy() == 7).all()


def test_image_iter_errors_name_what_and_where(tmp_path):
    pytest.importorskip("PIL")
    rec = random_images_rec(tmp_path, 4, size=20)
    with pytest.raises(ValueError, match="give path_imgrec, path_imglist or imglist"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8))
    with pytest.raises(ValueError, match="expects inputs to have 3 channels"):
        mx.image.ImageIter(batch_size=2, data_shape=(1, 8, 8), path_imgrec=rec)
    with pytest.raises(ValueError, match="shuffle and num_parts > 1 need path_imgidx"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=rec, shuffle=True)
    with pytest.raises(ValueError, match="last_batch_handle must be"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=rec, last_batch_handle="keep")
    with pytest.raises(ValueError, match="label dtype 'float16' is not supported"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=rec, dtype="float16")
    it = mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=rec, aug_list=[])
    with pytest.raises(ValueError, match=r"record 0 of .*train\.rec is 3x20x20 \(CxHxW\) after augmentation, but "
                                         r"data_shape is \(3, 8, 8\)"):
        it.next()
    it = mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imgrec=rec, label_width=2)
    with pytest.raises(ValueError, match=r"record 0 of .*train\.rec has 1 label value\(s\), but label_width is 2"):
        it.next()
    (tmp_path / "bad.lst").write_text("0\t1\ta.png\nnot a line\n")
    with pytest.raises(ValueError, match=r"bad\.lst line 2: expected 'index<TAB>label...<TAB>path'"):
        mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imglist=str(tmp_path / "bad.lst"))
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    it = mx.image.ImageIter(batch_size=1, data_shape=(3, 8, 8), imglist=[[0, "broken.png"]], path_root=str(tmp_path))
    with pytest.raises(RuntimeError, match=r"broken image \(file broken\.png\)"):
        it.next()


def test_image_iter_with_augmenters_trains_a_module_on_digits(tmp_path):
    pytest.importorskip("sklearn")
    sys.path.insert(0, os.path.join(EXAMPLE, "resnet50"))
    import digits_data
    train_rec, val_rec, n_train, _ = digits_data.build(str(tmp_path), 32, quiet=True)
    random.seed(0)
    np.random.seed(0)
    mx.random.seed(0)
    train = mx.image.ImageIter(batch_size=32, data_shape=(3, 28, 28), path_imgrec=train_rec,
                               path_imgidx=train_rec[:-4] + ".idx", shuffle=True, rand_crop=True, rand_mirror=True,
                               mean=True, std=True, brightness=0.2, contrast=0.2, saturation=0.2, pca_noise=0.05)
    assert train.num_data == n_train
    first = train.next().data[0].asnumpy()
    train.reset()
    assert abs(first.mean()) < 1.0 and 0.5 < first.std() < 2.0  # normalized by ImageNet's mean and std
    val = mx.image.ImageIter(batch_size=64, data_shape=(3, 28, 28), path_imgrec=val_rec, mean=True, std=True)
    x = mx.sym.var("data")
    for filters in (16, 32):
        x = mx.sym.Convolution(x, num_filter=filters, kernel=(3, 3), pad=(1, 1))
        x = mx.sym.Pooling(mx.sym.Activation(x, act_type="relu"), kernel=(2, 2), stride=(2, 2), pool_type="max")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.flatten(x), num_hidden=10), name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(train, num_epoch=4, optimizer="sgd", optimizer_params={"learning_rate": 0.01, "momentum": 0.9},
            initializer=mx.init.Xavier())
    acc = mod.score(val, "acc")[0][1]
    assert acc > 0.5, acc  # 10 classes; about 0.8 after these 4 epochs of mirrored, jittered digits
