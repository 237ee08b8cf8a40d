"""Checkpoints in MXNet's layout: prefix-symbol.json and prefix-%04d.params with "arg:"/"aux:"
names (mx.model.save_checkpoint / load_checkpoint). Every file is replaced atomically and the
.params file is written last, so that its presence marks a complete set (latest_checkpoint)."""
from . import _core
from . import ndarray as nd
from . import symbol as sym


def latest_checkpoint(prefix, need_states=False):
    """The newest complete checkpoint's epoch: the largest N with prefix-NNNN.params and
    prefix-symbol.json (and prefix-NNNN.states when need_states), or None. A save interrupted by
    a crash leaves only temporary files or an orphan .states behind, which this passes over."""
    epoch = _core.latest_checkpoint(str(prefix), bool(need_states))
    return None if epoch < 0 else epoch


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Writes prefix-symbol.json (when symbol is given) and prefix-%04d.params."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
    data = {"arg:%s" % k: v for k, v in arg_params.items()}
    data.update({"aux:%s" % k: v for k, v in aux_params.items()})
    nd.save("%s-%04d.params" % (prefix, epoch), data)


def load_params(prefix, epoch):
    """(arg_params, aux_params) from prefix-%04d.params."""
    loaded = nd.load("%s-%04d.params" % (prefix, epoch))
    if not isinstance(loaded, dict):
        raise ValueError("%s-%04d.params has no names; expected arg:/aux: entries" % (prefix, epoch))
    arg_params, aux_params = {}, {}
    for k, v in loaded.items():
        kind, _, name = k.partition(":")
        if kind == "arg":
            arg_params[name] = v
        elif kind == "aux":
            aux_params[name] = v
        else:
            raise ValueError("parameter name %r has no arg:/aux: prefix" % k)
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) as save_checkpoint wrote them."""
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


def __getattr__(name):
    # FeedForward trains with Module and BatchEndParam lives in callback, both of which import
    # this module: they load on first use
    if name == "FeedForward":
        from ._feedforward import FeedForward
        return FeedForward
    if name == "BatchEndParam":
        from .callback import BatchEndParam
        return BatchEndParam
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
