"""The example's built-in data set: scikit-learn's bundled handwritten digits (1797 real 8x8
scans, 10 classes), rendered as RGB JPEG images and packed into MXNet .rec/.idx files, so the
default run exercises the same ImageRecordIter pipeline as an ImageNet run.

Each 8x8 scan (16 grey levels) is upsampled with bicubic interpolation to the requested size
and given a per-image foreground and background colour (seeded), so the three channels carry
different information. The split is stratified: 20% of each class goes to validation.
"""
import json
import os

import numpy as np

VERSION = 1  # bump when the rendering changes, so old files are rebuilt


def _render(scan, size, fg, bg):
    from PIL import Image
    grey = Image.fromarray(np.uint8(np.clip(scan * (255.0 / 16.0), 0, 255)), mode="L")
    ink = np.asarray(grey.resize((size, size), Image.BICUBIC), dtype=np.float32)[..., None] / 255.0
    rgb = bg[None, None, :] * (1.0 - ink) + fg[None, None, :] * ink
    return np.uint8(np.clip(rgb, 0, 255))


def build(out_dir, size=32, val_fraction=0.2, seed=0, quiet=False):
    """Writes digits_{train,val}.{rec,idx} under out_dir unless present for this size and
    version; returns (train_rec, val_rec, num_train, num_val)."""
    from sklearn.datasets import load_digits

    import symnet as mx

    os.makedirs(out_dir, exist_ok=True)
    stamp_path = os.path.join(out_dir, "digits_%d.json" % size)
    paths = {s: os.path.join(out_dir, "digits_%d_%s.rec" % (size, s)) for s in ("train", "val")}
    if os.path.exists(stamp_path):
        with open(stamp_path) as f:
            stamp = json.load(f)
        if stamp.get("version") == VERSION and all(os.path.exists(p) for p in paths.values()):
            return paths["train"], paths["val"], stamp["num_train"], stamp["num_val"]

    digits = load_digits()
    rng = np.random.RandomState(seed)
    val_mask = np.zeros(len(digits.target), dtype=bool)
    for c in range(10):
        idx = np.flatnonzero(digits.target == c)
        val_mask[rng.choice(idx, int(round(len(idx) * val_fraction)), replace=False)] = True
    counts = {}
    for split, mask in (("train", ~val_mask), ("val", val_mask)):
        idx = np.flatnonzero(mask)
        rng.shuffle(idx)
        rec_path = paths[split]
        # the writer replaces both files atomically on close; the stamp, written last, marks
        # the set complete
        rec = mx.recordio.MXIndexedRecordIO(rec_path[:-4] + ".idx", rec_path, "w")
        for k, i in enumerate(idx):
            fg = rng.uniform(150, 255, 3)
            bg = rng.uniform(0, 100, 3)
            if rng.rand() < 0.5:  # dark ink on a light ground for half of the images
                fg, bg = 255 - fg, 255 - bg
            img = _render(digits.images[i], size, fg, bg)
            header = mx.recordio.IRHeader(0, float(digits.target[i]), k, 0)
            rec.write_idx(k, mx.recordio.pack_img(header, img[:, :, ::-1], quality=95))  # BGR
        rec.close()
        counts[split] = len(idx)
    mx.fileio.write_atomically(stamp_path, json.dumps(
        {"version": VERSION, "num_train": counts["train"], "num_val": counts["val"]}))
    if not quiet:
        print("built the digits data set: %d train / %d validation images of %dx%d in %s"
              % (counts["train"], counts["val"], size, size, out_dir))
    return paths["train"], paths["val"], counts["train"], counts["val"]


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser(description="Writes the digits .rec/.idx files (train and val) "
                                "and their JSON description into OUT_DIR.")
    p.add_argument("out_dir")
    p.add_argument("image_size", nargs="?", type=int, default=32)
    args = p.parse_args()
    build(args.out_dir, args.image_size)
