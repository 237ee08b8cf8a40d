"""The kill test: a training run (tests/python/scripts/kill_train.py: Module.fit, AMP with
dynamic loss scaling, a checkpoint per epoch, a JSON-lines log) is SIGKILLed 24 times, 16 times
at random moments and 8 times inside a save (between the temporary file's fsync and its rename,
through the SYMNET_TEST_KILL_IN_SAVE hook), and resumed each time with --resume. After every
kill the newest complete checkpoint loads; at the end every checkpoint, weights, optimizer state
and loss scale, is byte-identical to an uninterrupted run's, and every log line parses.

Identical checkpoints alone do not show a resume (the run is deterministic: a --resume that
silently started over from epoch 0 would write the same files), so every run is also checked
to have continued from the newest complete checkpoint: the log lines it appends (one per batch,
with its epoch) start at that epoch's first batch and go on in order, the checkpoints up to it
are not written again, and a run that finishes says "resuming from epoch N"."""
import json
import os
import random
import re
import subprocess
import sys
import time

import symnet as mx

SCRIPT = os.path.join(os.path.dirname(__file__), "scripts", "kill_train.py")
EPOCHS = 12
RANDOM_KILLS, SAVE_KILLS = 16, 8
SAVES_PER_EPOCH = 3  # .states, -symbol.json, .params
BATCHES_PER_EPOCH = 12  # kill_train.py's BATCHES


def start(work, resume, env=None):
    args = [sys.executable, SCRIPT, str(work), str(EPOCHS)] + (["--resume"] if resume else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, **(env or {})))


def checkpoint_files(work):
    return {f: open(os.path.join(work, f), "rb").read() for f in sorted(os.listdir(work))
            if f.endswith((".params", ".states")) or f.endswith("-symbol.json")}


def complete_epochs(work):
    """The newest checkpoint a resume must continue from: .params is the last of an epoch's
    three files to be renamed into place (0 when there is none)."""
    done = [int(f[4:8]) for f in os.listdir(work) if re.fullmatch(r"net-\d{4}\.params", f)]
    return max(done, default=0)


def log_records(work):
    """(epoch, batch) of the log's whole lines (a run killed mid-write leaves a torn last one,
    which the next run cuts off)."""
    path = os.path.join(work, "log.jsonl")
    if not os.path.exists(path):
        return []
    lines = open(path).read().split("\n")[:-1]
    return [(r["epoch"], r["batch"]) for r in map(json.loads, lines)]


def batches_from(epoch):
    """The (epoch, batch) records a run from epoch on logs (Module.fit counts batches from 1)."""
    return [(e, b) for e in range(epoch, EPOCHS) for b in range(1, BATCHES_PER_EPOCH + 1)]


class ResumeCheck:
    """What one run of kill_train.py must show, checked after it ended (killed or not): it
    continued from `begin`, the newest complete checkpoint when it started (0 for a fresh run)."""

    def __init__(self, work, resume):
        self.work, self.resume = work, resume
        self.begin = complete_epochs(work) if resume else 0
        self.logged = len(log_records(work)) if resume else 0  # a fresh run starts an empty log
        # the checkpoints it continues from: atomic writes rename a new file into place, so one
        # written again has another inode (and modification time)
        self.kept = {}
        for f in os.listdir(work):
            m = re.fullmatch(r"net-(\d{4})(\.params|\.states|-symbol\.json)", f)
            if m and int(m.group(1)) <= self.begin:
                st = os.stat(os.path.join(work, f))
                self.kept[f] = (st.st_ino, st.st_mtime_ns)

    def check(self, out, finished):
        new = log_records(self.work)[self.logged:]
        want = batches_from(self.begin)
        what = "a run started %s (newest complete checkpoint: epoch %d)" % (
            "with --resume" if self.resume else "afresh", self.begin)
        assert new == want[:len(new)], "%s logged epochs/batches %s..., not %s..." % (what, new[:3], want[:3])
        if finished:
            assert new == want, "%s finished after logging %d batches, not %d" % (what, len(new), len(want))
            if self.begin:
                assert "resuming from epoch %d\n" % self.begin in out, "%s said:\n%s" % (what, out)
        for f, stamp in self.kept.items():
            st = os.stat(os.path.join(self.work, f))
            assert (st.st_ino, st.st_mtime_ns) == stamp, "%s wrote %s again" % (what, f)
        return bool(self.begin and new)  # a resume from a checkpoint, seen in the log


def check_newest_loads(work):
    prefix = os.path.join(str(work), "net")
    epoch = mx.model.latest_checkpoint(prefix, need_states=True)
    if epoch is None:
        return None
    _, args, auxs = mx.model.load_checkpoint(prefix, epoch)
    assert args and all(v.size for v in args.values())
    st = mx._core.load_optimizer_states("%s-%04d.states" % (prefix, epoch))
    assert st["loss_scaler"] is not None and st["num_update"] == epoch * 12
    return epoch


def test_killed_and_resumed_training_matches_an_uninterrupted_run(tmp_path):
    ref_dir, run_dir = tmp_path / "reference", tmp_path / "killed"
    ref_dir.mkdir()
    run_dir.mkdir()
    t0 = time.time()
    p = start(ref_dir, resume=False)
    out = p.communicate(timeout=600)[0]
    run_seconds = time.time() - t0  # the kill moments are drawn within a whole run's time
    assert p.returncode == 0, out
    reference = checkpoint_files(ref_dir)
    assert len([f for f in reference if f.endswith(".params")]) == EPOCHS
    assert log_records(ref_dir) == batches_from(0)  # the log shows where a run started

    t0 = time.time()
    rng = random.Random(1234)
    kills = {"random": 0, "save": 0}
    want = {"random": RANDOM_KILLS, "save": SAVE_KILLS}
    progress = []
    seen_resumes = 0  # runs that went on from a checkpoint after epoch 0 and logged a batch
    for _ in range(4 * (RANDOM_KILLS + SAVE_KILLS)):  # runs that finish before their kill retry
        left = [k for k in want if kills[k] < want[k]]
        if not left:
            break
        kind = rng.choice(left)
        resume = any(f.endswith(".params") for f in os.listdir(run_dir))
        resumed = ResumeCheck(run_dir, resume)
        if kind == "save":
            # the n-th atomic write of this process: any file of any epoch's checkpoint
            env = {"SYMNET_TEST_KILL_IN_SAVE": str(rng.randint(1, SAVES_PER_EPOCH * 3))}
            p = start(run_dir, resume, env)
            out = p.communicate(timeout=600)[0]
        else:
            p = start(run_dir, resume)
            try:
                # most of the first second is Python and symnet starting up: aim past it
                out = p.communicate(timeout=rng.uniform(0.4, 1.0) * run_seconds)[0]
            except subprocess.TimeoutExpired:
                p.kill()
                out = p.communicate()[0]
        assert p.returncode in (0, -9), "the run failed instead of being killed:\n" + out
        seen_resumes += resumed.check(out, finished=p.returncode == 0)
        if p.returncode == 0:  # finished before the kill: start over from scratch
            for f in os.listdir(run_dir):
                os.remove(os.path.join(run_dir, f))
            if kind == "random":
                # the reference run was timed on a busier machine than this one (pytest-xdist
                # runs another test beside it), or this run resumed late: draw earlier moments
                run_seconds *= 0.8
            continue
        kills[kind] += 1
        progress.append(check_newest_loads(run_dir))
    assert kills == want, kills

    resumed = ResumeCheck(run_dir, resume=True)
    p = start(run_dir, resume=True)
    out = p.communicate(timeout=600)[0]
    assert p.returncode == 0, out
    seen_resumes += resumed.check(out, finished=True)
    assert seen_resumes, "no run resumed from a checkpoint and trained on"
    finished = checkpoint_files(run_dir)
    assert sorted(finished) == sorted(reference)
    differ = [f for f in reference if finished[f] != reference[f]]
    assert not differ, "checkpoints that differ from the uninterrupted run: %s" % differ
    for line in open(run_dir / "log.jsonl"):  # torn lines were cut off on resume
        json.loads(line)
    print("kills %s, newest checkpoint after each: %s; %d runs resumed and trained on; %.0f s"
          % (kills, progress, seen_resumes, time.time() - t0))
