"""RecordIO and images: MXNet-compatible framing and headers, pack_img/unpack_img, im2rec, and
ImageRecordIter (decoding, augmentation, shuffling, parts, damaged records)."""
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import symnet as mx
from symnet import recordio

DATA = os.path.join(os.path.dirname(__file__), "data")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_reads_mxnet_records_and_writes_identical_files(tmp_path):
    r = recordio.MXIndexedRecordIO(os.path.join(DATA, "mxnet191.idx"), os.path.join(DATA, "mxnet191.rec"), "r")
    assert r.keys == [0, 1, 2, 3, 4]
    out = recordio.MXIndexedRecordIO(str(tmp_path / "x.idx"), str(tmp_path / "x.rec"), "w")
    for i in r.keys:
        header, payload = recordio.unpack(r.read_idx(i))
        assert payload == bytes(range(i * 7, i * 7 + 3 + i))
        assert (header.id, header.id2) == (100 + i, 7)
        if i % 2 == 0:
            assert header.flag == 0 and header.label == i
        else:
            assert header.flag == 2 and list(header.label) == [i, i + 0.5]
        out.write_idx(i, recordio.pack(header, payload))
    out.close()
    assert open(tmp_path / "x.rec", "rb").read() == open(os.path.join(DATA, "mxnet191.rec"), "rb").read()
    assert open(tmp_path / "x.idx").read() == open(os.path.join(DATA, "mxnet191.idx")).read()


def test_framing(tmp_path):
    w = recordio.MXRecordIO(str(tmp_path / "f.rec"), "w")
    w.write(b"abcde")
    w.close()
    raw = open(tmp_path / "f.rec", "rb").read()
    magic, lrec = struct.unpack("<II", raw[:8])
    assert magic == 0xCED7230A and lrec & ((1 << 29) - 1) == 5
    assert raw[8:13] == b"abcde" and len(raw) == 16  # padded to 4 bytes
    r = recordio.MXRecordIO(str(tmp_path / "f.rec"), "r")
    assert r.read() == b"abcde" and r.read() is None


def test_damaged_recordio_names_file_and_record(tmp_path):
    path = str(tmp_path / "d.rec")
    w = recordio.MXRecordIO(path, "w")
    for i in range(3):
        w.write(b"x" * 10)
    w.close()
    raw = bytearray(open(path, "rb").read())
    raw[20] ^= 0xFF  # each record is 8 + 10 + 2 (padding) bytes: the second magic starts at 20
    open(path, "wb").write(bytes(raw))
    r = recordio.MXRecordIO(path, "r")
    assert r.read() == b"x" * 10
    with pytest.raises(mx.MXNetError, match=r"d\.rec.*record 1"):
        r.read()
    with pytest.raises(mx.MXNetError, match="cannot open"):
        recordio.MXRecordIO(str(tmp_path / "missing.rec"), "r")


def make_images(n=12, size=20, seed=0):
    rng = np.random.RandomState(seed)
    imgs = []
    for i in range(n):
        img = np.zeros((size, size, 3), np.uint8)
        img[..., i % 3] = 40 + 15 * i  # a flat, class-coloured image survives JPEG
        img += rng.randint(0, 3, img.shape).astype(np.uint8)
        imgs.append(img)
    return imgs


def write_rec(tmp_path, imgs, name="imgs", fmt=".jpg", quality=98):
    rec = recordio.MXIndexedRecordIO(str(tmp_path / (name + ".idx")), str(tmp_path / (name + ".rec")), "w")
    for i, img in enumerate(imgs):
        rec.write_idx(i, recordio.pack_img(recordio.IRHeader(0, float(i % 4), i, 0), img[:, :, ::-1],
                                           quality=quality, img_fmt=fmt))
    rec.close()
    return str(tmp_path / (name + ".rec")), str(tmp_path / (name + ".idx"))


def test_pack_img_unpack_img(tmp_path):
    pytest.importorskip("PIL")
    img = make_images(1)[0]
    header, back = recordio.unpack_img(recordio.pack_img(recordio.IRHeader(0, 3.0, 7, 0), img, img_fmt=".png"))
    assert header.label == 3.0 and header.id == 7
    np.testing.assert_array_equal(back, img)  # PNG is lossless; BGR in, BGR out


def test_image_record_iter_reads_back_images(tmp_path):
    pytest.importorskip("PIL")
    imgs = make_images(10)
    rec, idx = write_rec(tmp_path, imgs)
    it = mx.io.ImageRecordIter(path_imgrec=rec, path_imgidx=idx, data_shape=(3, 16, 16), batch_size=4,
                               mean_r=10, std_g=2.0)
    assert it.provide_data[0].shape == (4, 3, 16, 16)
    batches = list(it)
    assert len(batches) == 3 and [b.pad for b in batches] == [0, 0, 2]
    labels = np.concatenate([b.label[0].asnumpy() for b in batches])[:10]
    np.testing.assert_array_equal(labels, [i % 4 for i in range(10)])
    data = np.concatenate([b.data[0].asnumpy() for b in batches])[:10]
    for i, img in enumerate(imgs):
        crop = img[2:18, 2:18].astype(np.float32)  # centre crop of 16 from 20
        expect = np.stack([crop[..., 0] - 10, crop[..., 1] / 2.0, crop[..., 2]])
        assert np.abs(data[i] - expect).mean() < 2.0, i  # JPEG noise only
    # a second epoch gives the same batches (no shuffle)
    it.reset()
    np.testing.assert_array_equal(next(iter(it)).data[0].asnumpy(), batches[0].data[0].asnumpy())


def test_image_record_iter_shuffle_parts_and_augmentation(tmp_path):
    pytest.importorskip("PIL")
    rec, _ = write_rec(tmp_path, make_images(12))

    def ids(**kw):
        it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 12, 12), batch_size=3, **kw)
        # without the padding (MXNet's parts are byte ranges, so they may differ in size)
        return [tuple(b.index[:len(b.index) - b.pad]) for b in it], it

    plain, _ = ids()
    assert [i for b in plain for i in b] == list(range(12))
    s1, it = ids(shuffle=True, seed=5)
    s2, _ = ids(shuffle=True, seed=5)
    assert s1 == s2 and s1 != plain
    it.reset()
    assert [tuple(b.index) for b in it] != s1  # a new order per epoch
    p0, _ = ids(num_parts=2, part_index=0)
    p1, _ = ids(num_parts=2, part_index=1)
    assert sorted(i for b in p0 + p1 for i in b) == list(range(12))
    a = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 12, 12), batch_size=12, rand_mirror=True,
                              random_resized_crop=True, seed=1)
    b = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 12, 12), batch_size=12, rand_mirror=True,
                              random_resized_crop=True, seed=1)
    np.testing.assert_array_equal(next(iter(a)).data[0].asnumpy(), next(iter(b)).data[0].asnumpy())
    f16 = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 12, 12), batch_size=12, dtype="float16")
    assert next(iter(f16)).data[0].dtype == np.float16


def test_bad_images_fail_or_are_skipped(tmp_path):
    pytest.importorskip("PIL")
    imgs = make_images(6)
    rec = recordio.MXRecordIO(str(tmp_path / "bad.rec"), "w")
    for i, img in enumerate(imgs):
        if i == 2:
            rec.write(recordio.pack(recordio.IRHeader(0, 2.0, i, 0), b"\xff\xd8 not really a jpeg"))
        else:
            rec.write(recordio.pack_img(recordio.IRHeader(0, float(i), i, 0), img))
    rec.close()
    path = str(tmp_path / "bad.rec")
    with pytest.raises(mx.MXNetError, match=r"bad\.rec: record 2.*JPEG"):
        list(mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 16, 16), batch_size=3))
    it = mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 16, 16), batch_size=3, skip_bad=True)
    labels = [l for b in it for l in b.label[0].asnumpy()]
    assert 2.0 not in labels[:5] and it.num_skipped == 1


def test_im2rec_tool(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    root = tmp_path / "images"
    imgs = make_images(8, size=24)
    for i, img in enumerate(imgs):
        d = root / ("class_%d" % (i % 2))
        d.mkdir(parents=True, exist_ok=True)
        Image.fromarray(img).save(d / ("img%d.png" % i))
    prefix = str(tmp_path / "ds")
    env = dict(os.environ)
    tool = os.path.join(ROOT, "tools", "im2rec.py")
    subprocess.run([sys.executable, tool, "--list", "--recursive", "--no-shuffle", prefix, str(root)],
                   check=True, env=env)
    subprocess.run([sys.executable, tool, "--resize", "20", "--center-crop", "--quality", "98",
                    "--num-thread", "2", prefix, str(root)], check=True, env=env, capture_output=True)
    lst = [l.split("\t") for l in open(prefix + ".lst").read().splitlines()]
    it = mx.io.ImageRecordIter(path_imgrec=prefix + ".rec", path_imgidx=prefix + ".idx",
                               data_shape=(3, 20, 20), batch_size=8)
    batch = next(iter(it))
    for k, (idx, label, rel) in enumerate(lst):
        assert batch.label[0].asnumpy()[k] == float(label)
        src = np.asarray(Image.open(root / rel).convert("RGB").resize((20, 20), Image.BILINEAR), np.float32)
        assert np.abs(batch.data[0].asnumpy()[k].transpose(1, 2, 0) - src).mean() < 3.0

    # a failing run (an image gone since the list was made) is a clear error and keeps the
    # complete .rec/.idx of the run above
    before = open(prefix + ".rec", "rb").read(), open(prefix + ".idx").read()
    os.remove(root / lst[3][2])
    out = subprocess.run([sys.executable, tool, prefix, str(root)], env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "cannot read image" in out.stderr and lst[3][2] in out.stderr, out.stderr
    assert (open(prefix + ".rec", "rb").read(), open(prefix + ".idx").read()) == before


def test_truncated_jpeg_is_an_error_not_a_grey_image(tmp_path):
    pytest.importorskip("PIL")
    imgs = make_images(4, size=64)
    rec = recordio.MXRecordIO(str(tmp_path / "cut.rec"), "w")
    for i, img in enumerate(imgs):
        packed = recordio.pack_img(recordio.IRHeader(0, float(i), i, 0), img, quality=95)
        if i == 1:
            packed = packed[:len(packed) * 3 // 4]  # cut inside the scan data (a copy interrupted)
        rec.write(packed)
    rec.close()
    path = str(tmp_path / "cut.rec")
    with pytest.raises(mx.MXNetError, match=r"record 1.*damaged JPEG data"):
        list(mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 64, 64), batch_size=2))
    it = mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 64, 64), batch_size=3, skip_bad=True)
    assert sorted(l for b in it for l in b.label[0].asnumpy())[:3] == [0.0, 2.0, 3.0] and it.num_skipped == 1


def test_a_writer_left_by_an_exception_keeps_the_previous_file(tmp_path):
    path, idx = str(tmp_path / "d.rec"), str(tmp_path / "d.idx")
    with recordio.MXIndexedRecordIO(idx, path, "w") as w:
        w.write_idx(0, b"good")
    before = open(path, "rb").read(), open(idx).read()
    with pytest.raises(RuntimeError):
        with recordio.MXIndexedRecordIO(idx, path, "w") as w:
            w.write_idx(0, b"partial")
            raise RuntimeError("failed half-way")
    w = recordio.MXRecordIO(path, "w")
    w.write(b"partial")
    w.abort()
    assert (open(path, "rb").read(), open(idx).read()) == before
    assert sorted(os.listdir(tmp_path)) == ["d.idx", "d.rec"]


def test_index_errors_name_the_file_and_line(tmp_path):
    path, idx = str(tmp_path / "d.rec"), str(tmp_path / "d.idx")
    with recordio.MXIndexedRecordIO(idx, path, "w") as w:
        w.write_idx(0, b"zero")
        w.write_idx(1, b"one")
    r = recordio.MXIndexedRecordIO(idx, path, "r")
    with pytest.raises(KeyError, match=r"record key 5 is not in the index .*d\.idx"):
        r.read_idx(5)
    r.close()
    with open(idx, "a") as f:
        f.write("2\t100000\n")  # an offset past the end of d.rec
    r = recordio.MXIndexedRecordIO(idx, path, "r")
    with pytest.raises(ValueError, match=r"offset 100000 of key 2 is at or past the end"):
        r.read_idx(2)
    r.close()
    with open(idx, "a") as f:
        f.write("3\tnot-a-number\n")
    with pytest.raises(ValueError, match=r"d\.idx line 4: .*integer offset"):
        recordio.MXIndexedRecordIO(idx, path, "r")
