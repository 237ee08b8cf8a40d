"""Downloads and data-set files for symnet.test_utils (private; see download, get_mnist, ...)."""
import bz2
import errno
import gzip
import logging
import os
import shutil
import struct
import urllib.error
import urllib.request
import zipfile

import numpy as np


def fetch(url, fname, attempts):
    """Copies `url` to the file fname (through fname + '.part', so that a failed download leaves
    nothing), trying up to `attempts` times. Raises OSError naming the URL when every attempt
    fails, as it does without network access."""
    last = None
    for attempt in range(attempts):
        part = fname + ".part"
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                code = response.getcode()
                if code not in (None, 200):
                    raise OSError("failed to open %s (HTTP status %s)" % (url, code))
                with open(part, "wb") as out:
                    shutil.copyfileobj(response, out, 1 << 20)
            os.replace(part, fname)
            return
        except (OSError, urllib.error.URLError) as e:
            last = e
            if os.path.exists(part):
                os.remove(part)
            left = attempts - attempt - 1
            if left:
                print("download failed, retrying, {} attempt{} left".format(left, "s" if left > 1 else ""))
    raise OSError("could not download %s to %s (%d attempt%s; no network access?): %s. To work offline, put the "
                  "file at %s." % (url, fname, attempts, "s" if attempts > 1 else "", last, fname)) from last


def download(url, fname, dirname, overwrite, retries):
    """test_utils.download's body (see there)."""
    assert retries >= 0, "Number of retries should be at least 0"
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname != "" and not os.path.exists(dirname):
        try:
            logging.info("create directory %s", dirname)
            os.makedirs(dirname)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise OSError("failed to create " + dirname)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    fetch(url, fname, max(retries, 1))
    logging.info("downloaded %s into %s successfully", url, fname)
    return fname


def model_zoo_urls():
    """name -> {'symbol': url, 'params': url} of the pretrained models download_model knows."""
    base = "http://data.mxnet.io/models/"

    def entry(folder, prefix, epoch="0000"):
        return {"symbol": "%s%s/%s-symbol.json" % (base, folder, prefix),
                "params": "%s%s/%s-%s.params" % (base, folder, prefix, epoch)}

    zoo = {"imagenet1k-inception-bn": entry("imagenet/inception-bn", "Inception-BN", "0126")}
    for depth in (18, 34, 50, 101, 152):
        zoo["imagenet1k-resnet-%d" % depth] = entry("imagenet/resnet/%d-layers" % depth, "resnet-%d" % depth)
    for depth in (50, 101):
        zoo["imagenet1k-resnext-%d" % depth] = entry("imagenet/resnext/%d-layers" % depth, "resnext-%d" % depth)
    zoo["imagenet1k-resnext-101-64x4d"] = entry("imagenet/resnext/101-layers", "resnext-101-64x4d")
    zoo["imagenet11k-resnet-152"] = entry("imagenet-11k/resnet-152", "resnet-152")
    for depth in (152, 50):
        zoo["imagenet11k-place365ch-resnet-%d" % depth] = entry("imagenet-11k-place365-ch", "resnet-%d" % depth)
    return zoo


def read_mnist(label_file, image_file):
    """(labels int8, images float32 (N, 1, rows, cols) scaled to [0, 1]) from gzip'd idx files."""
    with gzip.open(label_file) as f:
        struct.unpack(">II", f.read(8))
        label = np.frombuffer(f.read(), dtype=np.int8)
    with gzip.open(image_file, "rb") as f:
        _, _, rows, cols = struct.unpack(">IIII", f.read(16))
        image = np.frombuffer(f.read(), dtype=np.uint8).reshape(len(label), 1, rows, cols)
    return label, image.astype(np.float32) / 255


def fetch_zip_into_data(required, url, download):
    """Unless every file in `required` exists, downloads the zip `url` into data/ and extracts it
    there."""
    if not os.path.isdir("data"):
        os.makedirs("data")
    if not all(os.path.exists(f) for f in required):
        with zipfile.ZipFile(download(url, dirname="data")) as zf:
            zf.extractall("data")


def bunzip(src, dst):
    """Decompresses the bz2 file src into dst."""
    with bz2.BZ2File(src, "rb") as fin, open(dst, "wb") as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)
