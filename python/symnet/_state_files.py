"""Optimizer state files in symnet's own format, shared by gluon.Trainer and mx.kvstore: an
MXNet .params file holding the state arrays plus a JSON header under "__meta__" (no pickle:
loading a file runs no code)."""
import json

import numpy as np

from . import ndarray as nd


def save(fname, fmt, states, optimizer, extra=None):
    """states: {str key: None | NDArray | tuple/list of (NDArray or None)}."""
    arrays, layout = {}, {}
    for key, state in states.items():
        parts = _flat(state) if isinstance(state, (list, tuple)) else [state]
        layout[key] = {"tuple": isinstance(state, (list, tuple)), "none": [s is None for s in parts]}
        if isinstance(state, (list, tuple)) and len(parts) != len(state):  # nested, e.g. (master, (m, v))
            layout[key]["nest"] = _shape(state)
        for k, s in enumerate(parts):
            if s is not None:
                arrays["%s/%d" % (key, k)] = s
    meta = {"format": fmt, "num_update": optimizer.num_update,
            "index_update_count": {str(k): v for k, v in optimizer._index_update_count.items()},
            "layout": layout}
    meta.update(extra or {})
    arrays["__meta__"] = nd.array(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), dtype="uint8")
    nd.save(fname, arrays)


def load(fname, fmt, kind, optimizer, key_parser, place):
    """Returns ({parsed key: state}, meta) and restores the optimizer's update counts. kind names
    the writer in errors ('Trainer'); key_parser(str) -> the caller's key; place(key, NDArray)
    -> the array where it belongs."""
    loaded = nd.load(fname)
    if not isinstance(loaded, dict) or "__meta__" not in loaded:
        raise ValueError("%s is not a symnet %s state file (MXNet's pickled states are not "
                         "read: unpickling runs code)" % (fname, kind))
    meta = json.loads(loaded.pop("__meta__").asnumpy().astype(np.uint8).tobytes().decode())
    if meta.get("format") != fmt:
        raise ValueError("%s: state format %r, expected %r" % (fname, meta.get("format"), fmt))
    states = {}
    for key, info in meta["layout"].items():
        k = key_parser(key)
        parts = [None if none else place(k, loaded["%s/%d" % (key, i)]) for i, none in enumerate(info["none"])]
        if "nest" in info:
            it = iter(parts)
            states[k] = _build(info["nest"], it)
        else:
            states[k] = tuple(parts) if info["tuple"] else parts[0]
    optimizer.num_update = meta["num_update"]
    optimizer._index_update_count = {int(k) if k.lstrip("-").isdigit() else k: v
                                     for k, v in meta["index_update_count"].items()}
    return states, meta


def _flat(state):
    if isinstance(state, (list, tuple)):
        return [leaf for part in state for leaf in _flat(part)]
    return [state]


def _shape(state):
    """The nesting of a state as JSON: a list per tuple, 0 per array (or None)."""
    return [_shape(p) for p in state] if isinstance(state, (list, tuple)) else 0


def _build(shape, leaves):
    return tuple(_build(s, leaves) for s in shape) if isinstance(shape, list) else next(leaves)
