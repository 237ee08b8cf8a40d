"""A small AMP training run for the kill test (tests/python/test_kill_resume.py): an MLP on fixed
synthetic data through Module.fit with dynamic loss scaling, a checkpoint (symbol, states,
params) after every epoch and a JSON-lines log, or with --resume continuing from the newest
complete checkpoint. Deterministic: an uninterrupted run and a run killed and resumed any number
of times must write byte-identical checkpoints.

    python3 kill_train.py WORK_DIR NUM_EPOCHS [--resume]
"""
import os
import sys

import numpy as np

import symnet as mx

BATCH, BATCHES, FEATURES, CLASSES = 32, 12, 20, 5


def data():
    rng = np.random.RandomState(7)
    centers = rng.normal(size=(CLASSES, FEATURES)) * 2
    y = rng.randint(0, CLASSES, BATCH * BATCHES)
    x = centers[y] + rng.normal(size=(len(y), FEATURES))
    return mx.io.NDArrayIter(x.astype(np.float32), y.astype(np.float32), batch_size=BATCH)


def net():
    h = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=64, name="fc1"), act_type="relu")
    h = mx.sym.Activation(mx.sym.FullyConnected(h, num_hidden=64, name="fc2"), act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=CLASSES, name="fc3"), name="softmax")


def main():
    work, num_epoch, resume = sys.argv[1], int(sys.argv[2]), "--resume" in sys.argv
    prefix = os.path.join(work, "net")
    np.random.seed(0)  # the initializer draws from numpy's generator: same start every time
    mx.random.seed(0)
    mx.amp.init("bfloat16")
    begin = mx.model.latest_checkpoint(prefix, need_states=True) if resume else None
    if begin is not None:
        mod = mx.mod.Module.load(prefix, begin, load_optimizer_states=True, context=mx.cpu())
        print("resuming from epoch", begin, flush=True)
    else:
        begin = 0
        mod = mx.mod.Module(net(), context=mx.cpu())
    # the scaler's state (scale, clean steps) comes from the .states file on resume; a small
    # window makes the scale change during the run so that a wrong resume shows
    mx.amp.init_trainer(mod, mx.amp.LossScaler(init_scale=2.0 ** 10, scale_window=7))
    mod.fit(data(), num_epoch=num_epoch, begin_epoch=begin, optimizer="sgd",
            optimizer_params={"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-4},
            initializer=mx.init.Xavier(), eval_metric="ce",
            batch_end_callback=mx.callback.LogWriter(os.path.join(work, "log.jsonl"), BATCH, append=resume),
            epoch_end_callback=mx.callback.do_checkpoint(prefix, save_optimizer_states=True))
    print("finished", flush=True)


if __name__ == "__main__":
    main()
