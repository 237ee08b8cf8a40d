"""Missing and damaged files (.params, -symbol.json, .states, .rec, .idx, .lst, JPEG records), a
batch larger than the data set, an empty data set and wrong image shapes: each bad input gives
the error (or warning) that docs/errors.md quotes, naming the file and what is wrong."""
import gc
import logging
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import symnet as mx
from symnet import recordio

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
IM2REC = os.path.join(ROOT, "tools", "im2rec.py")


def softmax_net(hidden=(3,)):
    """data -> FullyConnected layers fc, fc2, ... -> SoftmaxOutput."""
    out = mx.sym.var("data")
    for k, n in enumerate(hidden):
        out = mx.sym.FullyConnected(out, num_hidden=n, name="fc" if k == 0 else "fc%d" % (k + 1))
    return mx.sym.SoftmaxOutput(out, name="softmax")


def blobs(n=8, features=4, seed=0):
    rng = np.random.RandomState(seed)
    return rng.randn(n, features).astype(np.float32), (np.arange(n) % 3).astype(np.float32)


def module(hidden=(3,), optimizer="sgd", **opt_params):
    mod = mx.mod.Module(softmax_net(hidden), context=mx.cpu())
    mod.bind([("data", (8, 4))], [("softmax_label", (8,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer=optimizer, optimizer_params=dict({"learning_rate": 0.1}, **opt_params))
    return mod


def trained(hidden=(3,), optimizer="sgd", **opt_params):
    """A module after one update (so that its optimizer has a state per parameter)."""
    mod = module(hidden, optimizer, **opt_params)
    x, y = blobs()
    mod.forward_backward(next(iter(mx.io.NDArrayIter(x, y, batch_size=8))))
    assert mod.update()
    return mod


def make_images(n, size=20, seed=0):
    rng = np.random.RandomState(seed)
    imgs = []
    for i in range(n):
        img = np.zeros((size, size, 3), np.uint8)
        img[..., i % 3] = 40 + 15 * i
        img += rng.randint(0, 3, img.shape).astype(np.uint8)
        imgs.append(img)
    return imgs


def write_images(path, imgs, fmt=".jpg"):
    w = recordio.MXRecordIO(str(path), "w")
    for i, img in enumerate(imgs):
        w.write(recordio.pack_img(recordio.IRHeader(0, float(i), i, 0), img, quality=98, img_fmt=fmt))
    w.close()
    return str(path)


def write_records(path, payloads):
    w = recordio.MXRecordIO(str(path), "w")
    for p in payloads:
        w.write(p)
    w.close()
    return str(path)


# ---- .params -------------------------------------------------------------------------------------

def test_a_missing_params_file_names_the_path(tmp_path):
    with pytest.raises(mx.MXNetError, match=r"^cannot open NDArray file '.*/missing\.params': "
                                            r"No such file or directory$"):
        mx.nd.load(str(tmp_path / "missing.params"))
    # a checkpoint whose -symbol.json is there but whose .params is not
    softmax_net().save(str(tmp_path / "np-symbol.json"))
    for load in (mx.model.load_checkpoint, mx.mod.Module.load):
        with pytest.raises(mx.MXNetError, match=r"^cannot open NDArray file '.*/np-0001\.params': "
                                                r"No such file or directory$"):
            load(str(tmp_path / "np"), 1)


def test_a_json_file_given_as_params_is_not_an_ndarray_file(tmp_path):
    path = str(tmp_path / "t-symbol.json")
    softmax_net().save(path)
    size = os.path.getsize(path)
    with pytest.raises(mx.MXNetError, match=r"t-symbol\.json: not an MXNet NDArray file \(list magic is not "
                                            r"0x112\) \(at byte 8 of %d\)$" % size):
        mx.nd.load(path)


# ---- -symbol.json --------------------------------------------------------------------------------

def test_a_missing_symbol_file_names_the_path(tmp_path):
    prefix = str(tmp_path / "nock")
    expect = r"^cannot open symbol file '.*/nock-symbol\.json': No such file or directory$"
    with pytest.raises(mx.MXNetError, match=expect):
        mx.sym.load(prefix + "-symbol.json")
    with pytest.raises(mx.MXNetError, match=expect):
        mx.model.load_checkpoint(prefix, 1)
    with pytest.raises(mx.MXNetError, match=expect):
        mx.mod.Module.load(prefix, 1)


def test_a_truncated_or_empty_symbol_file_names_the_file_and_the_line(tmp_path):
    good = str(tmp_path / "good-symbol.json")
    softmax_net().save(good)
    text = open(good).read().rstrip()
    cut = text[:-1]  # the last '}' lost, as by an interrupted copy
    assert cut.endswith("\n")
    open(tmp_path / "t-symbol.json", "w").write(cut)
    with pytest.raises(mx.MXNetError, match=r"t-symbol\.json: JSON parse error at line %d, column 1: "
                                            r"expected ',' or '}' in an object$" % (cut.count("\n") + 1)):
        mx.sym.load(str(tmp_path / "t-symbol.json"))
    half = text[:text.index('"name": "fc_weight"') + 12]  # cut inside a string
    open(tmp_path / "h-symbol.json", "w").write(half)
    with pytest.raises(mx.MXNetError, match=r"h-symbol\.json: JSON parse error at line %d, column %d: "
                                            r"unterminated string$"
                                            % (half.count("\n") + 1, len(half) - half.rfind("\n"))):
        mx.sym.load(str(tmp_path / "h-symbol.json"))
    open(tmp_path / "e-symbol.json", "w").close()
    with pytest.raises(mx.MXNetError, match=r"e-symbol\.json: JSON parse error at line 1, column 1: "
                                            r"unexpected end of text"):
        mx.sym.load(str(tmp_path / "e-symbol.json"))


# ---- .states -------------------------------------------------------------------------------------

def test_a_missing_states_file_fails_at_init_optimizer_naming_it(tmp_path):
    prefix = str(tmp_path / "b")
    trained().save_checkpoint(prefix, 1)  # no .states
    mod = mx.mod.Module.load(prefix, 1, load_optimizer_states=True, context=mx.cpu())
    mod.bind([("data", (8, 4))], [("softmax_label", (8,))])  # the states are read only with the optimizer
    with pytest.raises(mx.MXNetError, match=r"^cannot open optimizer state file '.*/b-0001\.states': "
                                            r"No such file or directory$"):
        mod.init_optimizer(optimizer_params={"learning_rate": 0.1})


def test_a_states_file_of_garbage_bytes_names_the_field_and_byte(tmp_path):
    path = tmp_path / "a-0001.states"
    path.write_bytes(b"garbage")
    with pytest.raises(mx.MXNetError, match=r"a-0001\.states: truncated: needs 8 bytes for list magic, "
                                            r"7 left \(at byte 0 of 7\)"):
        module().load_optimizer_states(str(path))


def test_states_of_a_model_with_more_parameters_are_an_error(tmp_path):
    path = str(tmp_path / "big.states")
    trained(hidden=(5, 3)).save_optimizer_states(path)  # 4 parameters
    with pytest.raises(mx.MXNetError, match=r"big\.states': state for parameter index 2, but the network "
                                            r"has 2 parameters \(a file of another model\?\)"):
        module(momentum=0.9).load_optimizer_states(path)


def test_states_of_a_model_with_fewer_parameters_warn_naming_the_fresh_ones(tmp_path, caplog):
    small = tmp_path / "small.states"
    first = trained(hidden=(3,), momentum=0.9)  # fc (4 -> 3): its shapes fit the first layer below
    first.save_optimizer_states(str(small))
    big = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.FullyConnected(
        mx.sym.var("data"), num_hidden=3, name="fc"), num_hidden=3, name="fc2"), name="softmax"), context=mx.cpu())
    big.bind([("data", (8, 4))], [("softmax_label", (8,))])
    big.init_params()
    big.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    with caplog.at_level(logging.WARNING):
        big.load_optimizer_states(str(small))
    msgs = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert msgs == ["optimizer states '%s': no saved state for 2 of the 4 trained parameters (fc2_weight, "
                    "fc2_bias); they start with fresh optimizer state (a file of another model?)" % small], msgs
    # the saved states are the ones loaded; the others get a fresh state at their first update
    np.testing.assert_array_equal(big._states[0].asnumpy(), first._states[0].asnumpy())
    assert np.abs(first._states[0].asnumpy()).sum() > 0
    assert 2 not in big._states
    # a file of the same model loads without a word
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        first.load_optimizer_states(str(small))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_adam_states_into_sgd_with_momentum_are_an_error(tmp_path):
    path = str(tmp_path / "adam.states")
    trained(optimizer="adam").save_optimizer_states(path)
    with pytest.raises(mx.MXNetError, match=r"adam\.states': parameter 'fc_weight' has 2 saved state array\(s\), "
                                            r"optimizer SGD needs 1 \(saved by another optimizer\?\)"):
        module(momentum=0.9).load_optimizer_states(path)


def test_momentum_states_into_plain_sgd_are_dropped_with_a_warning(tmp_path, caplog):
    path = str(tmp_path / "a.states")
    trained(momentum=0.9).save_optimizer_states(path)
    plain = module()
    with caplog.at_level(logging.WARNING):
        plain.load_optimizer_states(path)
    msgs = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert msgs == ["optimizer states '%s': SGD keeps no state for '%s'; the saved one is dropped" % (path, n)
                    for n in ("fc_weight", "fc_bias")], msgs


# ---- .rec ----------------------------------------------------------------------------------------

def test_a_rec_cut_mid_record_names_the_byte_and_the_record(tmp_path):
    path = write_records(tmp_path / "trunc.rec", [b"x" * 10] * 3)  # 3 x (8 header + 10 + 2 padding) bytes
    raw = open(path, "rb").read()
    assert len(raw) == 60
    open(path, "wb").write(raw[:55])
    r = recordio.MXRecordIO(path, "r")
    assert r.read() == b"x" * 10 and r.read() == b"x" * 10
    with pytest.raises(mx.MXNetError, match=r"RecordIO file '.*/trunc\.rec' is damaged at byte 40 \(record 2 "
                                            r"after the last seek\): a record part of 10 bytes, but the file "
                                            r"has 7 left"):
        r.read()


def test_a_file_that_is_not_recordio_is_a_bad_magic_at_byte_0(tmp_path):
    path = tmp_path / "text.rec"
    path.write_bytes(b"hello, this is not RecordIO\n")
    magic = struct.unpack("<I", b"hell")[0]
    with pytest.raises(mx.MXNetError, match=r"text\.rec' is damaged at byte 0 \(record 0 after the last "
                                            r"seek\): bad magic 0x%08x, expected 0xced7230a" % magic):
        recordio.MXRecordIO(str(path), "r").read()


def test_an_unclosed_writer_publishes_what_it_wrote_when_collected(tmp_path):
    """As in MXNet (__del__ -> close): a writer used without `with` that an exception leaves
    open is published complete when it is garbage-collected, not before."""
    path = str(tmp_path / "w.rec")

    def write_then_fail():
        w = recordio.MXRecordIO(path, "w")
        w.write(b"first")
        w.write(b"second")
        raise RuntimeError("failed before close()")

    with pytest.raises(RuntimeError, match="failed before close") as info:
        write_then_fail()
    assert not os.path.exists(path)  # the traceback still holds the open writer
    del info
    gc.collect()
    assert os.listdir(tmp_path) == ["w.rec"]  # published whole, no temporary file left
    r = recordio.MXRecordIO(path, "r")
    assert [r.read(), r.read(), r.read()] == [b"first", b"second", None]


def test_an_empty_rec_or_part_has_no_records_for_image_record_iter(tmp_path):
    empty = write_records(tmp_path / "empty.rec", [])
    assert os.path.getsize(empty) == 0 and recordio.MXRecordIO(empty, "r").read() is None
    with pytest.raises(mx.MXNetError, match=r"^ImageRecordIter: '.*/empty\.rec' has no records for part 0 of 1$"):
        mx.io.ImageRecordIter(path_imgrec=empty, data_shape=(3, 16, 16), batch_size=2)
    two = write_records(tmp_path / "two.rec", [b"a", b"b"])  # 2 records: parts 2 to 7 of 8 are empty
    with pytest.raises(mx.MXNetError, match=r"two\.rec' has no records for part 5 of 8$"):
        mx.io.ImageRecordIter(path_imgrec=two, data_shape=(3, 16, 16), batch_size=2, num_parts=8, part_index=5)


# ---- .idx ----------------------------------------------------------------------------------------

def write_indexed(tmp_path, name="d"):
    idx, rec = str(tmp_path / (name + ".idx")), str(tmp_path / (name + ".rec"))
    with recordio.MXIndexedRecordIO(idx, rec, "w") as w:
        w.write_idx(0, b"zero")
        w.write_idx(1, b"one")
    return idx, rec


def test_a_missing_idx_names_the_path(tmp_path):
    _, rec = write_indexed(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"No such file or directory: '.*/none\.idx'"):
        recordio.MXIndexedRecordIO(str(tmp_path / "none.idx"), rec, "r")
    with pytest.raises(mx.MXNetError, match=r"^cannot open index file '.*/none\.idx': No such file or directory$"):
        mx.io.ImageRecordIter(path_imgrec=rec, path_imgidx=str(tmp_path / "none.idx"), data_shape=(3, 8, 8),
                              batch_size=1)


def test_an_idx_line_with_a_key_that_is_not_an_integer_names_file_and_line(tmp_path):
    _, rec = write_indexed(tmp_path)
    bad = tmp_path / "e.idx"
    bad.write_text("0\t0\nfoo\t16\n")
    with pytest.raises(ValueError, match=r"e\.idx line 2: 'foo\\t16' is not 'key<TAB>offset' with an "
                                         r"integer offset >= 0$"):
        recordio.MXIndexedRecordIO(str(bad), rec, "r")


def test_an_idx_offset_into_the_middle_of_a_record_is_a_bad_magic(tmp_path):
    idx, rec = write_indexed(tmp_path)
    open(idx, "w").write("0\t5\n")
    raw = open(rec, "rb").read()
    magic = struct.unpack("<I", raw[5:9])[0]
    r = recordio.MXIndexedRecordIO(idx, rec, "r")
    with pytest.raises(mx.MXNetError, match=r"d\.rec' is damaged at byte 5 \(record 0 after the last seek\): "
                                            r"bad magic 0x%08x, expected 0xced7230a" % magic):
        r.read_idx(0)


# ---- .lst and tools/im2rec.py --------------------------------------------------------------------

def test_im2rec_bad_lists_and_folders_exit_1_with_one_line(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    images = tmp_path / "images"
    (images / "class_0").mkdir(parents=True)
    for i, img in enumerate(make_images(3, size=8)):
        Image.fromarray(img).save(images / "class_0" / ("img%d.png" % i))
    (images / "class_0" / "img4.png").write_bytes(b"not a png")
    (tmp_path / "empty").mkdir()
    for name, text in [("short", "0\t1.0\n"), ("label", "0\t0\tclass_0/img0.png\n1\tx\tclass_0/img1.png\n"),
                       ("unreadable", "0\t0\tclass_0/img0.png\n2\t0\tclass_0/img4.png\n")]:
        (tmp_path / name / "lists").mkdir(parents=True)
        (tmp_path / name / "lists" / "ds.lst").write_text(text)
    runs = {
        "short": [str(tmp_path / "short" / "lists" / "ds"), str(images)],
        "label": [str(tmp_path / "label" / "lists" / "ds"), str(images)],
        "unreadable": [str(tmp_path / "unreadable" / "lists" / "ds"), str(images)],
        "no lst": [str(tmp_path / "empty" / "ds"), str(images)],
        "no prefix folder": [str(tmp_path / "gone" / "ds"), str(images)],
        "list empty": ["--list", str(tmp_path / "empty" / "ds"), str(tmp_path / "empty")],
        "list gone": ["--list", str(tmp_path / "ds"), str(tmp_path / "no_such_folder")],
    }
    procs = {k: subprocess.Popen([sys.executable, IM2REC] + a, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for k, a in runs.items()}
    out = {}
    for k, p in procs.items():
        _, err = p.communicate(timeout=60)
        out[k] = (p.returncode, err)
    t = str(tmp_path)
    expect = {
        "short": "%s/short/lists/ds.lst line 1: expected 'index<TAB>label...<TAB>path'" % t,
        "label": "%s/label/lists/ds.lst line 2: the index must be an integer and the labels numbers (could not "
                 "convert string to float: 'x')" % t,
        "no lst": "no %s/empty/ds*.lst files; run with --list first" % t,
        "no prefix folder": "no %s/gone/ds*.lst files: the folder %s/gone does not exist" % (t, t),
        "list empty": "no images with extensions ['.jpeg', '.jpg', '.png'] under %s/empty" % t,
        "list gone": "--list: %s/no_such_folder is not a folder" % t,
    }
    for k, line in expect.items():
        assert out[k] == (1, line + "\n"), (k, out[k])
    code, err = out["unreadable"]
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("%s/unreadable/lists/ds.lst: cannot read image '%s/class_0/img4.png' (index 2): "
                          "cannot identify image file" % (t, images)) and err.endswith("; nothing was written\n"), err
    assert sorted(os.listdir(tmp_path / "unreadable" / "lists")) == ["ds.lst"]  # no .rec or .idx


# ---- JPEG records --------------------------------------------------------------------------------

def test_a_png_or_a_too_short_record_names_the_record(tmp_path):
    pytest.importorskip("PIL")
    png = write_images(tmp_path / "p.rec", make_images(1), fmt=".png")
    with pytest.raises(mx.MXNetError, match=r"p\.rec: record 0 \(offset 0\): not a JPEG image \(no SOI marker\) "
                                            r"\(skip_bad=True skips such records\)$"):
        list(mx.io.ImageRecordIter(path_imgrec=png, data_shape=(3, 16, 16), batch_size=1))
    short = write_records(tmp_path / "s.rec", [b"abc"])
    with pytest.raises(mx.MXNetError, match=r"s\.rec: record 0 \(offset 0\): image record of 3 bytes is shorter "
                                            r"than its 24-byte header \(skip_bad=True skips such records\)$"):
        list(mx.io.ImageRecordIter(path_imgrec=short, data_shape=(3, 16, 16), batch_size=1))


def test_a_grayscale_jpeg_gives_three_equal_channels(tmp_path):
    pytest.importorskip("PIL")
    gray = np.tile(np.arange(0, 200, 10, dtype=np.uint8), (20, 1))  # 20 x 20, a horizontal ramp
    rec = write_records(tmp_path / "g.rec", [recordio.pack_img(recordio.IRHeader(0, 1.0, 0, 0), gray, quality=100)])
    assert recordio.unpack_img(recordio.MXRecordIO(rec, "r").read(), iscolor=0)[1].ndim == 2
    x = next(iter(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 20, 20), batch_size=1))).data[0].asnumpy()[0]
    np.testing.assert_array_equal(x[0], x[1])
    np.testing.assert_array_equal(x[0], x[2])
    assert np.abs(x[0] - gray).max() <= 2  # the ramp, up to JPEG rounding
    one = next(iter(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(1, 20, 20), batch_size=1)))
    np.testing.assert_allclose(one.data[0].asnumpy()[0, 0], x[0], atol=1e-3)


def test_images_smaller_than_data_shape_are_scaled_up_with_one_warning(tmp_path, capfd):
    pytest.importorskip("PIL")
    rec = write_images(tmp_path / "small.rec", make_images(4, size=20))
    capfd.readouterr()
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 32, 32), batch_size=2, preprocess_threads=1)
    batches = list(it)
    it.reset()
    batches += list(it)  # a second epoch: no second warning
    assert [b.data[0].shape for b in batches] == [(2, 3, 32, 32)] * 4
    err = capfd.readouterr().err
    assert err == ("warning: %s: record 0 is 20x20 (height x width), smaller than data_shape 32x32; such images "
                   "are scaled up to fit (set resize= to choose the scale; this warning is given once)\n" % rec), err
    # the whole image is there, scaled: a flat colour stays flat (record 0 is blue 40: pack_img takes BGR)
    x = batches[0].data[0].asnumpy()[0]
    assert np.abs(x[2] - 40).max() <= 4 and np.abs(x[:2]).max() <= 4
    # resize= smaller than data_shape says so; a data_shape that fits warns nothing
    list(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 32, 24), batch_size=2, resize=16,
                               preprocess_threads=1))
    assert "record 0 is 16x16 (height x width) after resize=16, smaller than data_shape 32x24" in capfd.readouterr().err
    list(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 16, 16), batch_size=2))
    list(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 32, 32), batch_size=2, resize=40))
    assert capfd.readouterr().err == ""


def test_a_wrong_data_shape_or_part_index_is_an_error(tmp_path):
    rec = write_records(tmp_path / "r.rec", [b"a", b"b"])
    for shape in [(4, 16, 16), (16, 16), (16, 16, 3)]:
        with pytest.raises(mx.MXNetError, match=r"^ImageRecordIter: data_shape must be \(3, H, W\) or \(1, H, W\), "
                                                r"got %s$" % str(shape).replace("(", r"\(").replace(")", r"\)")):
            mx.io.ImageRecordIter(path_imgrec=rec, data_shape=shape, batch_size=2)
    with pytest.raises(mx.MXNetError, match=r"^ImageRecordIter: part_index 2 is not in \[0, num_parts=2\)$"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 16, 16), batch_size=2, num_parts=2, part_index=2)


# ---- batch size larger than the data set ---------------------------------------------------------

def test_ndarray_iter_batch_size_errors_and_roll_over_without_batches():
    x, y = blobs(10)
    with pytest.raises(ValueError, match=r"^NDArrayIter: batch_size 32 does not fit 10 samples; with "
                                         r"last_batch_handle='discard' no batch would be left \(use 'pad'\)$"):
        mx.io.NDArrayIter(x, y, batch_size=32, last_batch_handle="discard")
    for bad in (0, -1):
        with pytest.raises(ValueError, match=r"^NDArrayIter: batch_size must be at least 1, got %d$" % bad):
            mx.io.NDArrayIter(x, y, batch_size=bad)
    # roll_over carries the samples into the next epoch: the first epochs have no batch (Module.fit
    # raises for such an epoch, see test_bad_training_input.py), the fourth has 40 samples
    it = mx.io.NDArrayIter(x, y, batch_size=32, last_batch_handle="roll_over")
    counts = []
    for _ in range(4):
        counts.append(len(list(it)))
        it.reset()
    assert counts == [0, 0, 0, 1]


def test_image_record_iter_batch_larger_than_the_records(tmp_path):
    pytest.importorskip("PIL")
    rec = write_images(tmp_path / "four.rec", make_images(4, size=16))
    batches = list(mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 16, 16), batch_size=8))
    assert [(b.data[0].shape, b.pad) for b in batches] == [((8, 3, 16, 16), 4)]
    np.testing.assert_array_equal(batches[0].label[0].asnumpy(), [0, 1, 2, 3, 0, 1, 2, 3])  # wrapped around
    with pytest.raises(mx.MXNetError, match=r"^ImageRecordIter: batch_size 8 does not fit the 4 records of "
                                            r"'.*/four\.rec' \(part 0 of 1\); with round_batch=False no batch "
                                            r"would be left$"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 16, 16), batch_size=8, round_batch=False)
    with pytest.raises(mx.MXNetError, match=r"^ImageRecordIter: batch_size and label_width must be positive, "
                                            r"got batch_size 0 and label_width 1$"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 16, 16), batch_size=0)
