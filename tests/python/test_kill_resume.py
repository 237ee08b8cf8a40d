"""The kill test: a training run (tests/python/scripts/kill_train.py: Module.fit, AMP with
dynamic loss scaling, a checkpoint per epoch, a JSON-lines log) is SIGKILLed 24 times, 16 times
at random moments and 8 times inside a save (between the temporary file's fsync and its rename,
through the SYMNET_TEST_KILL_IN_SAVE hook), and resumed each time with --resume. After every
kill the newest complete checkpoint loads; at the end every checkpoint, weights, optimizer state
and loss scale, is byte-identical to an uninterrupted run's, and every log line parses."""
import json
import os
import random
import subprocess
import sys
import time

import symnet as mx

SCRIPT = os.path.join(os.path.dirname(__file__), "scripts", "kill_train.py")
EPOCHS = 12
RANDOM_KILLS, SAVE_KILLS = 16, 8
SAVES_PER_EPOCH = 3  # .states, -symbol.json, .params


def start(work, resume, env=None):
    args = [sys.executable, SCRIPT, str(work), str(EPOCHS)] + (["--resume"] if resume else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, **(env or {})))


def checkpoint_files(work):
    return {f: open(os.path.join(work, f), "rb").read() for f in sorted(os.listdir(work))
            if f.endswith((".params", ".states")) or f.endswith("-symbol.json")}


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

    t0 = time.time()
    rng = random.Random(1234)
    kills = {"random": 0, "save": 0}
    want = {"random": RANDOM_KILLS, "save": SAVE_KILLS}
    progress = []
    for _ in range(4 * (RANDOM_KILLS + SAVE_KILLS)):  # runs that finish before their kill retry
        left = [k for k in want if kills[k] < want[k]]
        if not left:
            break
        kind = rng.choice(left)
        resume = any(f.endswith(".params") for f in os.listdir(run_dir))
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
        if p.returncode == 0:  # finished before the kill: start over from scratch
            for f in os.listdir(run_dir):
                os.remove(os.path.join(run_dir, f))
            if kind == "random":
                # the reference run was timed on a busier machine than this one (pytest-xdist
                # runs another test beside it), or this run resumed late: draw earlier moments
                run_seconds *= 0.8
            continue
        assert p.returncode == -9, "the run failed instead of being killed:\n" + out
        kills[kind] += 1
        progress.append(check_newest_loads(run_dir))
    assert kills == want, kills

    p = start(run_dir, resume=True)
    out = p.communicate(timeout=600)[0]
    assert p.returncode == 0, out
    finished = checkpoint_files(run_dir)
    assert sorted(finished) == sorted(reference)
    differ = [f for f in reference if finished[f] != reference[f]]
    assert not differ, "checkpoints that differ from the uninterrupted run: %s" % differ
    for line in open(run_dir / "log.jsonl"):  # torn lines were cut off on resume
        json.loads(line)
    print("kills %s, newest checkpoint after each: %s; %.0f s" % (kills, progress, time.time() - t0))
