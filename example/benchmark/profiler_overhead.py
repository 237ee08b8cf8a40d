#!/usr/bin/env python3
"""What mx.profiler costs a training step: a Module training step (forward_backward + update) of
a ResNet with the profiler stopped, and with it running with everything on (a span per op call,
API spans, memory counters, aggregate totals). Rounds alternate the two so that machine noise
falls on both; prints ms/step per mode, the ratio, and the records and trace bytes per step.

    python3 example/benchmark/profiler_overhead.py [--num-layers 50] [--batch-size 8]
        [--image-size 224] [--rounds 3] [--steps 3]
"""
import argparse
import json
import os
import tempfile
import time

import numpy as np

import symnet as mx


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-layers", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    n, s = args.batch_size, args.image_size
    rng = np.random.RandomState(0)
    sym = mx.models.resnet(args.num_layers, "1.5", 1000, (3, s, s))
    mod = mx.mod.Module(sym)
    mod.bind(data_shapes=[("data", (n, 3, s, s))], label_shapes=[("softmax_label", (n,))])
    mod.init_params(mx.init.Xavier(magnitude=2))
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.01, "momentum": 0.9})
    batch = mx.io.DataBatch([mx.nd.array(rng.uniform(-1, 1, (n, 3, s, s)))],
                            [mx.nd.array(rng.randint(0, 1000, n))])

    def step():
        mod.forward_backward(batch)
        mod.update()
        mod.get_outputs()[0].asnumpy()

    trace = os.path.join(tempfile.mkdtemp(), "profile.json")
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=trace)
    step()
    times = {"off": [], "on": []}
    profiled_steps = 0
    for _ in range(args.rounds):
        for mode in ("off", "on"):
            mx.profiler.set_state("run" if mode == "on" else "stop")
            t = time.perf_counter()
            for _ in range(args.steps):
                step()
            times[mode].append((time.perf_counter() - t) / args.steps)
            profiled_steps += args.steps if mode == "on" else 0
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    with open(trace) as f:
        events = [e for e in json.load(f)["traceEvents"] if e["ph"] != "M"]
    for mode in ("off", "on"):
        ms = 1000 * float(np.median(times[mode]))
        print("profiler %-3s %8.1f ms/step  (rounds: %s)" % (
            mode, ms, ", ".join("%.0f" % (1000 * t) for t in times[mode])))
    print("on / off: %.3f (ResNet-%d, batch %d, %dx%d); %.0f records and %.0f KB of trace per step"
          % (float(np.median(times["on"]) / np.median(times["off"])), args.num_layers, n, s, s,
             len(events) / profiled_steps, os.path.getsize(trace) / 1024 / profiled_steps))


if __name__ == "__main__":
    main()
