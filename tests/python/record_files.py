"""Small RecordIO image sets for the tests that train from .rec files."""
import numpy as np

import symnet as mx


def random_images_rec(folder, n, classes=4, size=24, seed=0):
    """Writes folder/train.rec (+ .idx): n random size x size RGB JPEGs labelled i % classes;
    returns the .rec path."""
    rng = np.random.RandomState(seed)
    rec = str(folder / "train.rec")
    with mx.recordio.MXIndexedRecordIO(str(folder / "train.idx"), rec, "w") as w:
        for i in range(n):
            img = rng.randint(0, 256, (size, size, 3)).astype(np.uint8)
            w.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i % classes), i, 0), img))
    return rec
