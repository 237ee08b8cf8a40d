"""gluon.utils: splitting a batch over contexts, clipping gradients by their global norm."""
import math

from .. import ndarray as nd


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Splits data into num_slice pieces along batch_axis."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError("data with shape %s cannot be split evenly into %d slices along axis "
                         "%d; use even_split=False or a batch size that divides"
                         % (data.shape, num_slice, batch_axis))
    if num_slice > size:
        raise ValueError("cannot split %d samples into %d slices" % (size, num_slice))
    step = size // num_slice
    out = []
    for i in range(num_slice):
        begin = i * step
        end = (i + 1) * step if i < num_slice - 1 else size
        out.append(nd.slice_axis(data, axis=batch_axis, begin=begin, end=end))
    return out


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Splits data along batch_axis and copies each piece to one context."""
    if not isinstance(data, nd.NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    pieces = split_data(data, len(ctx_list), batch_axis, even_split)
    return [p.as_in_context(c) for p, c in zip(pieces, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scales arrays in place so that their joint 2-norm is at most max_norm; returns the norm
    before scaling."""
    if not arrays:
        raise ValueError("clip_global_norm: no arrays")
    ctx = arrays[0].context
    total = nd.add_n(*[nd.sum(nd.square(a.astype("float32"))).as_in_context(ctx)
                       for a in arrays])
    norm = float(math.sqrt(float(total.asscalar())))
    if check_isfinite and not math.isfinite(norm):
        import warnings
        warnings.warn("clip_global_norm: the norm is %s; the arrays are left as they are" % norm,
                      stacklevel=2)
        return norm
    scale = max_norm / (norm + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a *= scale
    return norm
