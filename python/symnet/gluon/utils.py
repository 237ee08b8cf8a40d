"""gluon.utils, as MXNet 1.9.1's: splitting a batch over contexts, clipping gradients by their
global norm, downloading files (download, check_sha1, replace_file, the model repository's URLs)
and shape_is_known."""
import hashlib
import math
import os
import ssl
import urllib.error
import urllib.request
import uuid
import warnings
import weakref

import numpy as np

from .. import ndarray as nd
from ..util import is_np_shape

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download",
           "replace_file"]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Splits data into num_slice pieces along batch_axis (a list even for one piece). With
    even_split=False the first size % num_slice pieces get one more sample (and pieces are empty
    when there are fewer samples than pieces). Pieces along axis 0 are views of data."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError("data with shape %s cannot be evenly split into %d slices along axis %d. "
                         "Use a batch size that's multiple of %d or set even_split=False to allow "
                         "uneven partitioning of data." % (data.shape, num_slice, batch_axis,
                                                           num_slice))
    each, extras = divmod(size, num_slice)
    bounds = [0]
    for i in range(num_slice):
        bounds.append(bounds[-1] + each + (1 if i < extras else 0))
    if batch_axis == 0:
        return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]
    return [nd.slice_axis(data, axis=batch_axis, begin=bounds[i], end=bounds[i + 1])
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Splits data along batch_axis (see split_data) and copies piece i to ctx_list[i]; data that
    is not an NDArray (a numpy array, a list) becomes one on ctx_list[0] first."""
    if not isinstance(data, nd.NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    pieces = split_data(data, len(ctx_list), batch_axis, even_split)
    return [p.as_in_context(c) for p, c in zip(pieces, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scales arrays in place so that their joint 2-norm is at most max_norm (by
    min(1, max_norm / (norm + 1e-8))) and returns the norm before scaling: a float, or with
    check_isfinite=False an NDArray of shape (1,) without waiting for it. A norm that is not
    finite gives a warning (check_isfinite=True) and, as in MXNet, scales the arrays anyway.
    Low-precision arrays are summed in float32."""
    assert len(arrays) > 0, "clip_global_norm: no arrays"
    ctx = arrays[0].context

    def squared_norm(a):
        flat = a.reshape((-1,))
        if flat.dtype != np.float32 and flat.dtype != np.float64:
            flat = flat.astype("float32")
        return nd.dot(flat, flat).as_in_context(ctx)

    total = nd.sqrt(nd.add_n(*[squared_norm(a) for a in arrays]))
    if check_isfinite and not math.isfinite(float(total.asscalar())):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."),
                      stacklevel=2)
    scale = max_norm / (total + 1e-8)
    scale = nd.min(nd.concat(scale, nd.ones((1,), ctx=ctx, dtype=scale.dtype), dim=0))
    for a in arrays:
        a *= scale.as_in_context(a.context).astype(a.dtype)
    return float(total.asscalar()) if check_isfinite else total


def _indent(s_, numSpaces):
    """s_ with every line after the first indented by numSpaces spaces."""
    first, *rest = s_.split("\n")
    return "\n".join([first] + [" " * numSpaces + line for line in rest])


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file's content is sha1_hash (hexadecimal)."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha1.update(block)
    return sha1.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Moves src to dst in one step (dst is replaced, never seen half-written). On failure src
    is removed and OSError raised."""
    try:
        os.replace(src, dst)
    except OSError as e:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError("Moving downloaded temp file - %s, to %s failed (%s). Please retry the "
                      "download." % (src, dst, e)) from e


def _fetch(url, target, verify_ssl, timeout):
    """Writes the body of url to the file `target`; RuntimeError for an HTTP status other than
    200, urllib's errors (URLError, an OSError) when the server cannot be reached."""
    context = None
    if url.lower().startswith("https:") and not verify_ssl:
        context = ssl._create_unverified_context()
    with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
        status = getattr(response, "status", None)
        if status is not None and status != 200:
            raise RuntimeError("Failed downloading url %s: HTTP status %s" % (url, status))
        with open(target, "wb") as f:
            for chunk in iter(lambda: response.read(1 << 16), b""):
                f.write(chunk)


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Downloads url (http, https, ftp or file) and returns the file's path: `path` when it names
    a file, path/<the URL's last part> when it is a folder, ./<the URL's last part> without it.
    An existing file is kept unless overwrite is set or sha1_hash is given and does not match.
    A download is tried up to `retries` times (at least once); when all fail, RuntimeError names
    the URL and the last reason (an unreachable server, an HTTP error). The file is written under
    a temporary name and moved into place, so concurrent downloads of one file leave one whole
    file. A finished download whose SHA-1 is not sha1_hash raises UserWarning (as MXNet does)."""
    if path is None:
        fname = url.split("/")[-1]
        assert fname, "Can't construct file-name from this URL. Please set the `path` option manually."
    else:
        path = os.path.expanduser(path)
        fname = os.path.join(path, url.split("/")[-1]) if os.path.isdir(path) else path
    assert retries >= 0, "Number of retries should be at least 0, currently it's %s" % retries
    if not verify_ssl:
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). Adding "
                      "certificate verification is strongly advised.")
    if not (overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash))):
        return fname
    dirname = os.path.dirname(os.path.abspath(os.path.expanduser(fname)))
    os.makedirs(dirname, exist_ok=True)
    attempts = max(retries, 1)
    for attempt in range(1, attempts + 1):
        temp = "%s.%s" % (fname, uuid.uuid4())
        try:
            print("Downloading %s from %s..." % (fname, url))
            _fetch(url, temp, verify_ssl, timeout=60)
            # another process may have finished the same file meanwhile: keep the first one
            # (MXNet also keeps it under overwrite=True, so that overwrite never replaced an
            # existing file without sha1_hash; here overwrite does)
            if (overwrite or not os.path.exists(fname)
                    or (sha1_hash and not check_sha1(fname, sha1_hash))):
                replace_file(temp, fname)
            else:
                os.remove(temp)
                warnings.warn("File %s exists in file system so the downloaded file is deleted" % fname)
            if sha1_hash and not check_sha1(fname, sha1_hash):
                raise UserWarning("File %s is downloaded but the content hash does not match. The "
                                  "repo may be outdated or download may be incomplete. If the "
                                  "\"repo_url\" is overridden, consider switching to the default "
                                  "repo." % fname)
            return fname
        except Exception as e:  # each failure is retried, as in MXNet
            if os.path.exists(temp):
                os.remove(temp)
            if attempt == attempts:
                if isinstance(e, (UserWarning, RuntimeError)):
                    raise
                reason = getattr(e, "reason", None) or e
                raise RuntimeError("Failed downloading url %s after %d attempt%s: %s (is the "
                                   "network reachable from this machine?)"
                                   % (url, attempts, "s" if attempts > 1 else "", reason)) from e
            print("download failed due to %r, retrying, %d attempt%s left"
                  % (e, attempts - attempt, "s" if attempts - attempt > 1 else ""))
    return fname


def _get_repo_url():
    """The base URL of the Gluon data and model repository: $MXNET_GLUON_REPO or MXNet's S3
    bucket, ending in '/'."""
    repo_url = os.environ.get("MXNET_GLUON_REPO",
                              "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return repo_url if repo_url.endswith("/") else repo_url + "/"


def _get_repo_file_url(namespace, filename):
    """The URL of `filename` under `namespace` ('gluon/models', ...) in the repository."""
    return "%s%s/%s" % (_get_repo_url(), namespace, filename)


def _brief_print_list(lst, limit=7):
    """The items quoted and comma-separated; a long list as its head, '...', and its tail."""
    lst = list(lst)
    if len(lst) > limit:
        return (_brief_print_list(lst[:limit // 2], limit) + ", ..., "
                + _brief_print_list(lst[-limit // 2:], limit))
    return ", ".join("'%s'" % str(i) for i in lst)


def shape_is_known(shape):
    """Whether every dimension of shape is known. Without NumPy shape semantics (symnet has them
    off) 0 marks an unknown dimension and () an unknown shape; None is never known."""
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim == unknown:
            return False
        assert dim > unknown, \
            "shape dimension size cannot be less than %d, while received %d" % (unknown, dim)
    return True


class HookHandle:
    """What register_forward_hook / register_forward_pre_hook return (MXNet's): detach()
    removes the hook; as a context manager it detaches on exit."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        if self._hooks_dict_ref is not None:
            raise AssertionError("a HookHandle is attached once only")
        self._id = id(hook)
        hooks_dict[self._id] = hook
        # weak: a handle kept after its block is gone does not keep the block's hooks alive
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None:
            hooks_dict.pop(self._id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
