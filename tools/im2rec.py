#!/usr/bin/env python3
"""im2rec: image folders -> .lst files -> .rec/.idx files (MXNet's tool, same options and
formats; the output reads in MXNet and in symnet's ImageRecordIter).

  # 1. list: one class per sub-folder (with --recursive), optional train/val split
  python3 tools/im2rec.py --list --recursive --train-ratio 0.8 data/digits images/
  # 2. pack every data/digits*.lst into .rec + .idx (4 worker processes encode)
  python3 tools/im2rec.py --resize 40 --center-crop --quality 95 --num-thread 4 data/digits images/

MXNet's other options: --chunks N (with --list) splits the list into N parts, prefix_0.lst ...
(each with its own train/val split), which pack into N .rec/.idx sets; --pack-label stores all
the labels of a .lst line (a multi-label record; without it only the first, as MXNet);
--pass-through stores each file's bytes as they are (no decoding, resize or re-encoding).
"""
import argparse
import multiprocessing
import os
import random
import sys
import threading
import time

import numpy as np

try:
    import symnet.fileio as fileio
    import symnet.recordio as recordio
except ImportError:  # run from a source checkout without installing
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import symnet.fileio as fileio
    import symnet.recordio as recordio


def list_images(root, recursive, exts):
    """(relative path, label) pairs: with recursive, each sub-folder (sorted) is a class."""
    items = []
    if recursive:
        classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        for label, cls in enumerate(classes):
            for dirpath, _, files in sorted(os.walk(os.path.join(root, cls))):
                for f in sorted(files):
                    if os.path.splitext(f)[1].lower() in exts:
                        items.append((os.path.relpath(os.path.join(dirpath, f), root), label))
    else:
        for f in sorted(os.listdir(root)):
            if os.path.splitext(f)[1].lower() in exts:
                items.append((f, 0))
    return items


def write_list(path, items):
    """items: (index, relative path, label) per image."""
    with fileio.AtomicTextFile(path) as f:  # replaced whole or not at all
        for index, rel, label in items:
            f.write("%d\t%f\t%s\n" % (index, label, rel))


def split_lists(prefix, items, args):
    """Writes prefix.lst, or prefix_test/_train/_val.lst by --test-ratio / --train-ratio."""
    n = len(items)
    n_test = int(n * args.test_ratio)
    n_train = int(n * args.train_ratio)
    if args.train_ratio >= 1.0 and args.test_ratio == 0:
        write_list(prefix + ".lst", items)
        print("wrote %s.lst (%d images)" % (prefix, n))
        return
    if n_test:
        write_list(prefix + "_test.lst", items[:n_test])
    write_list(prefix + "_train.lst", items[n_test:n_test + n_train])
    if n_test + n_train < n:
        write_list(prefix + "_val.lst", items[n_test + n_train:])
    print("wrote lists for %d images under %s (%d train, %d test, %d val)" %
          (n, prefix, n_train, n_test, n - n_test - n_train))


def make_lists(args):
    if not os.path.isdir(args.root):
        raise SystemExit("--list: %s is not a folder" % args.root)
    found = list_images(args.root, args.recursive, set(e.lower() for e in args.exts))
    if not found:
        raise SystemExit("no images with extensions %s under %s" % (args.exts, args.root))
    # as MXNet's tool: an image's index is its place in the sorted listing, before shuffling
    items = [(i, rel, label) for i, (rel, label) in enumerate(found)]
    if args.shuffle:
        random.Random(args.seed).shuffle(items)
    if args.chunks < 1 or args.chunks > len(items):
        raise SystemExit("--chunks %d: must be between 1 and the number of images (%d)"
                         % (args.chunks, len(items)))
    if args.chunks == 1:
        split_lists(args.prefix, items, args)
        return
    # MXNet's chunking: consecutive parts of ceil(n / chunks) images (the last may be smaller);
    # where that would leave a part empty, parts as equal as can be
    n, size = len(items), -(-len(items) // args.chunks)
    if (args.chunks - 1) * size >= n:
        bounds = [c * n // args.chunks for c in range(args.chunks + 1)]
    else:
        bounds = [min(c * size, n) for c in range(args.chunks + 1)]
    for c in range(args.chunks):
        split_lists("%s_%d" % (args.prefix, c), items[bounds[c]:bounds[c + 1]], args)


def parse_list(lines, path):
    """(index, labels, image path) per line of an .lst file; bad lines exit naming file and line."""
    for n, line in enumerate(lines, 1):
        parts = line.strip().split("\t")
        if len(parts) < 3:
            raise SystemExit("%s line %d: expected 'index<TAB>label...<TAB>path'" % (path, n))
        try:
            yield int(parts[0]), [float(v) for v in parts[1:-1]], parts[-1]
        except ValueError as e:
            raise SystemExit("%s line %d: the index must be an integer and the labels numbers (%s)"
                             % (path, n, e))


def read_list(path):
    # surrogateescape: image paths that are not UTF-8 pass through to the file system unchanged
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        yield from parse_list(f, path)


def load_image(path, args):
    from PIL import Image
    im = Image.open(path).convert("RGB" if args.color != 0 else "L")
    if args.resize:
        w, h = im.size
        s = args.resize / float(min(w, h))
        im = im.resize((max(1, round(w * s)), max(1, round(h * s))), Image.BILINEAR)
    if args.center_crop:
        w, h = im.size
        side = min(w, h)
        im = im.crop(((w - side) // 2, (h - side) // 2, (w - side) // 2 + side, (h - side) // 2 + side))
    arr = np.asarray(im)
    return arr[:, :, ::-1] if arr.ndim == 3 else arr  # BGR, as MXNet's pack_img expects


class Progress:
    def __init__(self, total, stream=sys.stderr):
        self.total, self.done, self.tic, self.stream = total, 0, time.time(), stream
        self.lock = threading.Lock()

    def step(self):
        with self.lock:
            self.done += 1
            if self.done % 50 and self.done != self.total:
                return
            frac = self.done / max(self.total, 1)
            rate = self.done / max(time.time() - self.tic, 1e-9)
            bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
            self.stream.write("\r[%s] %d/%d  %.0f img/s" % (bar, self.done, self.total, rate))
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


_WORKER_ARGS = {}


def _init_worker(args):
    _WORKER_ARGS["args"] = args


def encode_item(item, args=None):
    """One .lst entry -> (index, packed record, None), or (index, None, why) when the image
    cannot be read. Runs in the worker processes."""
    args = args or _WORKER_ARGS["args"]
    idx, labels, rel = item
    path = os.path.join(args.root, rel)
    # MXNet packs a list of labels only with --pack-label; otherwise the first
    label = np.array(labels, np.float32) if args.pack_label and len(labels) > 1 else labels[0]
    header = recordio.IRHeader(0, label, idx, 0)
    try:
        if args.pass_through:
            with open(path, "rb") as f:
                return idx, recordio.pack(header, f.read()), None
        img = load_image(path, args)
    except (OSError, ValueError) as e:  # missing, unreadable or not an image
        return idx, None, "cannot read image %r (index %d): %s" % (path, idx, e)
    return idx, recordio.pack_img(header, img, quality=args.quality, img_fmt=args.encoding), None


def _pool_context():
    # fork where there is one: the workers start at once and inherit the imports (im2rec runs
    # no OpenMP-parallel work before it forks)
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def pack_list(lst, args):
    base = os.path.splitext(lst)[0]
    items = list(read_list(lst))
    progress = Progress(len(items))
    workers = max(1, min(args.num_thread, len(items)))
    print("packing %d images of %s with %d worker process%s" % (len(items), lst, workers,
                                                                 "" if workers == 1 else "es"), flush=True)
    rec = recordio.MXIndexedRecordIO(base + ".idx", base + ".rec", "w")
    pool = None
    try:
        if workers > 1:
            pool = _pool_context().Pool(workers, initializer=_init_worker, initargs=(args,))
            # imap hands the records back in the list's order, whichever worker finishes first
            results = pool.imap(encode_item, items, chunksize=max(1, min(32, len(items) // (4 * workers))))
        else:
            results = (encode_item(item, args) for item in items)
        for idx, packed, error in results:
            if error is not None:
                raise SystemExit("%s: %s; nothing was written" % (lst, error))
            rec.write_idx(idx, packed)
            progress.step()
    except BaseException:
        rec.abort()  # an earlier .rec/.idx of this name stays as it was
        raise
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    rec.close()
    print("wrote %s.rec and %s.idx (%d records)" % (base, base, len(items)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("prefix", help="prefix of the .lst/.rec/.idx files")
    p.add_argument("root", help="folder of the images")
    p.add_argument("--list", action="store_true", help="make .lst files instead of packing")
    p.add_argument("--exts", nargs="+", default=[".jpeg", ".jpg", ".png"])
    p.add_argument("--chunks", type=int, default=1, help="with --list: split the list into this many parts")
    p.add_argument("--train-ratio", type=float, default=1.0)
    p.add_argument("--test-ratio", type=float, default=0.0)
    p.add_argument("--recursive", action="store_true", help="one class per sub-folder")
    p.add_argument("--no-shuffle", dest="shuffle", action="store_false")
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--resize", type=int, default=0, help="resize the shorter side to this")
    p.add_argument("--center-crop", action="store_true")
    p.add_argument("--quality", type=int, default=95)
    p.add_argument("--num-thread", type=int, default=1, help="worker processes that read and encode images")
    p.add_argument("--color", type=int, default=1, choices=[-1, 0, 1])
    p.add_argument("--encoding", default=".jpg", choices=[".jpg", ".png"])
    p.add_argument("--pack-label", action="store_true", help="store every label of a .lst line (multi-label)")
    p.add_argument("--pass-through", action="store_true",
                   help="store the image files' bytes unchanged (no decoding, resizing or encoding)")
    args = p.parse_args()
    if args.list:
        make_lists(args)
        return
    folder = os.path.dirname(args.prefix) or "."
    stem = os.path.basename(args.prefix)
    if not os.path.isdir(folder):
        raise SystemExit("no %s*.lst files: the folder %s does not exist" % (args.prefix, folder))
    lists = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                   if f.startswith(stem) and f.endswith(".lst"))
    if not lists:
        raise SystemExit("no %s*.lst files; run with --list first" % args.prefix)
    for lst in lists:
        pack_list(lst, args)


if __name__ == "__main__":
    main()
