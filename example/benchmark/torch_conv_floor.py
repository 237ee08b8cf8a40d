"""ResNet-50's convolution set through PyTorch's oneDNN (PyTorch 2.15 from PyPI bundles oneDNN
3.13), to weigh a port of symnet to oneDNN 3.x against conv_floor (the same set on Debian's
oneDNN 2.6, which symnet uses): forward, backward data and backward weights of every distinct
shape, batch 32, channels-last (PyTorch's oneDNN path), warm caches (best of back-to-back calls),
summed with their counts; the stem's backward data is left out, as in training.

    ~/torchvenv/bin/python example/benchmark/torch_conv_floor.py [--batch 32] [--dtype float32]

Compare with `build/pip/example/conv_floor 32 float32 3` (its "warm" figure) in the same session.
"""
import argparse
import time

import torch
import torch.nn.functional as F


def resnet50_convs(image):
    """(in, out, hw, kernel, stride, count) as conv_floor.cc's ResNet50Convs lists them."""
    convs = [(3, 64, image, 7, 2)]
    inp, hw = 64, image // 4
    for st, units in enumerate((3, 4, 6, 3)):
        mid = 64 << st
        out = mid * 4
        for u in range(units):
            s = 2 if (u == 0 and st > 0) else 1
            convs += [(inp, mid, hw, 1, 1), (mid, mid, hw, 3, s), (mid, out, hw // s, 1, 1)]
            if u == 0:
                convs.append((inp, out, hw, 1, s))
            inp, hw = out, hw // s
    merged = {}
    for c in convs:
        merged[c] = merged.get(c, 0) + 1
    return [(c + (n,)) for c, n in merged.items()]


def best(f, reps):
    f()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    p.add_argument("--image", type=int, default=224)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    torch.set_num_threads(2)
    dt = getattr(torch, args.dtype)
    total = {"forward": 0.0, "backward data": 0.0, "backward weights": 0.0}
    flops = 0.0
    for c, o, hw, k, s, n in resnet50_convs(args.image):
        x = torch.randn(args.batch, c, hw, hw).to(dt).to(memory_format=torch.channels_last)
        w = torch.randn(o, c, k, k).to(dt).to(memory_format=torch.channels_last)
        pad = k // 2
        y = F.conv2d(x, w, stride=s, padding=pad)
        dy = torch.randn_like(y).to(memory_format=torch.channels_last)

        def bwd(mask):
            return torch.ops.aten.convolution_backward(dy, x, w, None, [s, s], [pad, pad], [1, 1], False,
                                                       [0, 0], 1, mask)

        with torch.no_grad():
            total["forward"] += n * best(lambda: F.conv2d(x, w, stride=s, padding=pad), args.reps)
            if c != 3:
                total["backward data"] += n * best(lambda: bwd([True, False, False]), args.reps)
            total["backward weights"] += n * best(lambda: bwd([False, True, False]), args.reps)
        flops += n * 2.0 * args.batch * o * c * k * k * y.shape[2] * y.shape[3] * (3 if c != 3 else 2)
    step = sum(total.values())
    print("torch %s (oneDNN %s), ResNet-50 convolutions, batch %d, %s, warm: %s" % (
        torch.__version__, ".".join(map(str, torch._C._get_mkldnn_version())) if hasattr(
            torch._C, "_get_mkldnn_version") else "?", args.batch, args.dtype,
        ", ".join("%s %.3f s" % kv for kv in total.items())))
    print("floor: %.3f s per step = %.2f img/s (%.0f GFLOP/s)" % (step, args.batch / step, flops / step / 1e9))


if __name__ == "__main__":
    main()
