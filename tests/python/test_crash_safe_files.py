"""Crash-safe writes of every file symnet writes for a user: a failed write (disk full, here a
file size limit) raises a clear error and leaves the previous file intact with no temporary file
behind; logs are appended line by line (a CSV log is never rewritten) and a torn last line is cut
off on resume; a checkpoint counts only once its .params file (written last) is in place."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symnet as mx

FULL_DISK = textwrap.dedent("""
    import resource, signal, sys
    import numpy as np
    import symnet as mx
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
    target = sys.argv[1]
    try:
        {body}
    except mx.MXNetError as e:
        print("ERROR:", e)
        sys.exit(0)
    sys.exit(3)
""")

WRITERS = {
    "params": "mx.nd.save(target, {'w': mx.nd.ones((1000,))})",
    "symbol": "mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='f' * 4000).save(target)",
    "rec": ("w = mx.recordio.MXRecordIO(target, 'w')\n"
            "    w.write(b'x' * 100000)\n"
            "    w.close()"),
    "json": "mx.fileio.write_atomically(target, '{' + ' ' * 100000 + '}')",
}


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_disk_full_keeps_the_previous_file(tmp_path, kind):
    target = tmp_path / ("out." + kind)
    target.write_bytes(b"previous contents")
    code = FULL_DISK.format(body=WRITERS[kind])
    out = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, "no error raised (rc %d): %s" % (out.returncode, out.stdout + out.stderr)
    assert "File too large" in out.stdout and str(target) in out.stdout, out.stdout
    assert "previous file" in out.stdout, out.stdout
    assert target.read_bytes() == b"previous contents"
    assert sorted(os.listdir(tmp_path)) == [target.name]  # no temporary file left


def test_indexed_recordio_and_plot_are_replaced_whole(tmp_path):
    rec, idx = tmp_path / "d.rec", tmp_path / "d.idx"
    w = mx.recordio.MXIndexedRecordIO(str(idx), str(rec), "w")
    for i in range(3):
        w.write_idx(i, b"record %d" % i)
    assert not rec.exists() and not idx.exists()  # nothing appears before close
    w.close()
    r = mx.recordio.MXIndexedRecordIO(str(idx), str(rec), "r")
    assert r.read_idx(2) == b"record 2"
    r.close()
    assert sorted(os.listdir(tmp_path)) == ["d.idx", "d.rec"]


def test_csv_log_is_appended_never_rewritten(tmp_path):
    path = str(tmp_path / "log.csv")
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([1, 0])], [mx.nd.array([[0.1, 0.9], [0.8, 0.2]])])
    w = mx.callback.LogWriter(path, batch_size=2, run_name="r")
    w(mx.callback.BatchEndParam(0, 1, metric))
    w(mx.callback.BatchEndParam(0, 2, metric))
    before = open(path, "rb").read()
    w.log_eval(mx.callback.BatchEndParam(0, 2, metric))  # the first val_ record
    after = open(path, "rb").read()
    assert after.startswith(before)  # earlier lines untouched: only appended
    lines = after.decode().splitlines()
    assert lines[0].split(",") == ["run", "epoch", "batch", "img_per_s", "accuracy", "val_accuracy"]
    assert lines[-1].split(",")[-1] == "1.0" and lines[-1].split(",")[-2] == ""
    w.close()


def test_resumed_log_drops_a_torn_last_line(tmp_path, caplog):
    path = str(tmp_path / "log.jsonl")
    metric = mx.metric.Accuracy()
    w = mx.callback.LogWriter(path, batch_size=2)
    w(mx.callback.BatchEndParam(0, 1, metric))
    w.close()
    with open(path, "a") as f:
        f.write('{"run": "x", "epo')  # the previous run was killed mid-line
    with caplog.at_level("WARNING"):
        w = mx.callback.LogWriter(path, batch_size=2, append=True)
    assert "torn last line" in caplog.text
    w(mx.callback.BatchEndParam(0, 2, metric))
    recs = [json.loads(line) for line in open(path)]  # every line parses
    assert [r["batch"] for r in recs] == [1, 2]


def small_module():
    data = mx.sym.var("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind([("data", (4, 5))], [("softmax_label", (4,))])
    mod.init_params(mx.init.Xavier(), seed=0)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    return mod


def test_latest_checkpoint_passes_over_incomplete_sets(tmp_path):
    prefix = str(tmp_path / "net")
    assert mx.model.latest_checkpoint(prefix) is None
    mod = small_module()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    mod.save_checkpoint(prefix, 2)
    assert mx.model.latest_checkpoint(prefix) == 2
    assert mx.model.latest_checkpoint(prefix, need_states=True) == 1
    (tmp_path / "net-0003.states").write_bytes(b"orphan: killed before its .params")
    assert mx.model.latest_checkpoint(prefix, need_states=True) == 1


KILLED_SAVE = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[2])
    from test_crash_safe_files import small_module
    mod = small_module()
    mod.save_checkpoint(sys.argv[1], 1, save_optimizer_states=True)
    import os
    os.environ["SYMNET_TEST_KILL_IN_SAVE"] = sys.argv[3]
    mod.save_checkpoint(sys.argv[1], 2, save_optimizer_states=True)
    print("not killed")
""")


@pytest.mark.parametrize("kill_at", [1, 2, 3])  # inside the .states, -symbol.json, .params save
def test_a_save_killed_midway_leaves_the_previous_checkpoint_loadable(tmp_path, kill_at):
    prefix = str(tmp_path / "net")
    out = subprocess.run([sys.executable, "-c", KILLED_SAVE, prefix, os.path.dirname(__file__),
                          str(kill_at)], capture_output=True, text=True, timeout=120)
    assert out.returncode == -9, out.stdout + out.stderr
    assert mx.model.latest_checkpoint(prefix, need_states=True) == 1
    mod = mx.mod.Module.load(prefix, 1, load_optimizer_states=True, context=mx.cpu())
    mod.bind([("data", (4, 5))], [("softmax_label", (4,))])
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    ref = small_module().get_params()[0]
    for k, v in mod.get_params()[0].items():
        np.testing.assert_array_equal(v.asnumpy(), ref[k].asnumpy())
