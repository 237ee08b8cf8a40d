"""What the non-finite-gradient check costs a Module training step without AMP: times full
ResNet steps (Module.forward_backward + Module.update, which runs the check) and the check alone
(one fused multi_all_finite over every gradient) on the same module, side by side.

    python3 example/benchmark/nonfinite_check.py [--num-layers 50] [--batch-size 32] [--image-size 224]
"""
import argparse
import time

import numpy as np

import symnet as mx


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-layers", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--steps", type=int, default=3)
    a = p.parse_args()
    shape = (a.batch_size, 3, a.image_size, a.image_size)
    mod = mx.mod.Module(mx.models.resnet(a.num_layers, "1.5", 1000, shape[1:]), context=mx.cpu())
    mod.bind([("data", shape)], [("softmax_label", (a.batch_size,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.01, "momentum": 0.9})
    rng = np.random.RandomState(0)
    batch = mx.io.DataBatch([mx.nd.array(rng.normal(size=shape))],
                            [mx.nd.array(rng.randint(0, 1000, a.batch_size))])
    grads = [mod._exec.grad_dict[n] for n in mod._param_names]
    numel = sum(g.size for g in grads)
    for _ in range(2):  # warm-up
        mod.forward_backward(batch)
        mod.update()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        mod.forward_backward(batch)
        mod.update()
        mx.nd.waitall()
    step = (time.perf_counter() - t0) / a.steps
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        mx._core.LossScaler.has_overflow([g.handle for g in grads])
    check = (time.perf_counter() - t0) / reps
    print("resnet-%d, batch %d, %dx%d, float32 Module step: %.3f s (%.2f img/s)"
          % (a.num_layers, a.batch_size, a.image_size, a.image_size, step, a.batch_size / step))
    print("non-finite check over %d gradient elements: %.2f ms = %.2f%% of the step"
          % (numel, check * 1e3, 100 * check / step))


if __name__ == "__main__":
    main()
