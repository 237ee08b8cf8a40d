"""Automatic mixed precision: two lines turn a float32 training script into a mixed-precision one.

    symnet.amp.init("bfloat16")      # later binds use the converted graph
    symnet.amp.init_trainer(trainer)  # dynamic loss scaling + float32 master weights

`init("auto")` lets the hardware choose: float16 on GPUs, bfloat16 on CPUs with native bfloat16
(AVX512_BF16 or AMX), float32 (AMP stays off) on other CPUs, where 16-bit ops would run through
float32 and be slower than float32 itself. `init()` with no argument means float16, as in MXNet.

The rewrite (C++, symnet::amp::ReducePrecision) runs Convolution/FullyConnected in the 16-bit
target dtype, keeps softmax, losses and reductions in float32, lets relu/pooling/BatchNorm run
in whatever arrives, and casts several-input ops to the widest dtype among their inputs.
init() applies the same rule to imperative calls (mx.nd.*, non-hybridized Gluon blocks): each
call casts its float inputs through amp_cast (recorded by autograd) before its op runs.
"""
import contextlib
import sys
import warnings

from ... import _core
from ...base import dtype_name
from ._infer_unknown import infer_unknown
from .loss_scaler import LossScaler

__all__ = ["init", "shutdown", "active_target", "auto_dtype", "convert_symbol", "convert_model",
           "convert_hybrid_block", "init_trainer", "scale_loss", "unscale", "LossScaler", "list_lp16_ops",
           "list_fp32_ops", "list_lp16_fp32_ops", "list_widest_type_cast", "list_conditional_fp32_ops"]

_state = {"target_dtype": None, "kwargs": {}}
_warned_slow = set()


def _device_kind():
    """Where later binds most likely run: a GPU when this build sees one, else the CPU."""
    return "gpu" if _core.num_gpus() > 0 else "cpu"


def auto_dtype(ctx=None):
    """AMP's "auto" choice: ("float16" | "bfloat16" | "float32", one-line reason) for the device
    kind of `ctx` (a Context, "cpu" or "gpu"; default: a GPU when there is one, else the CPU)."""
    kind = ctx if isinstance(ctx, str) else (getattr(ctx, "device_type", None) or _device_kind())
    return tuple(_core.amp_auto_dtype("gpu" if kind.startswith("gpu") else "cpu"))


def _target(target_dtype):
    name = dtype_name(target_dtype)
    if name not in ("float16", "bfloat16"):
        raise ValueError("AMP target dtype must be float16 or bfloat16, not %r" % (target_dtype,))
    return name


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None, excluded_sym_names=None):
    """Turns AMP on: from now on Symbol.simple_bind/bind (and Modules) bind the converted graph,
    and imperative calls (mx.nd ops, non-hybridized Gluon blocks) cast their float inputs as the
    converted graph would: to the target dtype for target-precision ops, to float32 for float32
    ops (and conditional ones whose attribute matches), to the widest input dtype for widest-type
    ops; neutral ops run on what they get. excluded_sym_names apply to graphs only.

    target_dtype "auto" picks what the hardware runs natively (see auto_dtype) and prints which
    and why; it may leave AMP off (float32). Returns the dtype AMP runs in, or None when off."""
    if isinstance(target_dtype, str) and target_dtype == "auto":
        name, why = auto_dtype()
        print("symnet.amp: auto precision: %s" % why, file=sys.stderr, flush=True)
        if name == "float32":
            shutdown()
            return None
        target_dtype = name
    else:
        _warn_if_slow(_target(target_dtype))
    target = _target(target_dtype)
    cond = [(op, attr, list(vals)) for op, attr, vals in (conditional_fp32_ops or [])]
    _core.amp_set_imperative(target, list(target_precision_ops or []), list(fp32_ops or []), cond)
    _state["target_dtype"] = target
    _state["kwargs"] = dict(target_dtype_ops=target_precision_ops, fp32_ops=fp32_ops,
                            conditional_fp32_ops=conditional_fp32_ops,
                            excluded_sym_names=excluded_sym_names)
    return _state["target_dtype"]


def _warn_if_slow(target):
    """Warns once per dtype when `target` has no native kernels here (slower than float32)."""
    native, why = _core.native_low_precision(_device_kind(), target)
    if not native and target not in _warned_slow:
        _warned_slow.add(target)
        warnings.warn("AMP %s runs slower than float32 on this machine: %s. amp.init('auto') picks "
                      "the fastest precision." % (target, why), RuntimeWarning, stacklevel=3)


def shutdown():
    """Turns AMP off again (mainly for tests): binds and imperative calls run as written."""
    _core.amp_set_imperative("", [], [], [])
    _state["target_dtype"] = None
    _state["kwargs"] = {}


def active_target():
    """The target dtype after init(), or None."""
    return _state["target_dtype"]


def _maybe_convert(sym):
    """What Symbol binding calls: the converted graph when AMP is on. amp.init's lists override
    the defaults op by op, as its imperative casts do (convert_symbol's replace them)."""
    from ...symbol import Symbol
    if _state["target_dtype"] is None:
        return sym
    kw = _state["kwargs"]
    attrs = sym.attr_dict()
    data_names = [n for n in sym.list_inputs() if "__dtype__" not in attrs.get(n, {})]
    cond = [(op, attr, list(vals)) for op, attr, vals in (kw.get("conditional_fp32_ops") or [])]
    handle, _ = _core.amp_convert(sym.handle, _state["target_dtype"], list(kw.get("target_dtype_ops") or []),
                                  list(kw.get("fp32_ops") or []), cond, list(kw.get("excluded_sym_names") or []),
                                  data_names, False, False)
    return Symbol(handle)


def _check_op_lists(target, target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names):
    """MXNet's checks of the lists given to convert_symbol/convert_model, with its
    AssertionErrors: lists of names, conditional entries (op, attribute, [values]), no op in two
    of the lists (a list left out is the default one, so fp32_ops=["Convolution"] alone conflicts
    with the default target list), and only ops that AMP's own lists put in the target-dtype,
    float32, neutral or conditional list (a widest-type op such as elemwise_add cannot be forced
    to a dtype). Returns the three lists to convert with, defaults filled in."""
    for what, ops in (("target_dtype_ops", target_dtype_ops), ("fp32_ops", fp32_ops),
                      ("conditional_fp32_ops", conditional_fp32_ops),
                      ("excluded_sym_names", excluded_sym_names)):
        assert ops is None or isinstance(ops, list), "%s should be a list, got %s" % (what, type(ops).__name__)
    for entry in conditional_fp32_ops or []:
        assert (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[0], str)
                and isinstance(entry[1], str) and isinstance(entry[2], list)), \
            "conditional_fp32_ops should be a list of (str, str, list of str), got %r" % (entry,)
    default_conditional = list_conditional_fp32_ops(target)
    lp16 = list_lp16_ops(target) if target_dtype_ops is None else list(target_dtype_ops)
    fp32 = list_fp32_ops(target) if fp32_ops is None else list(fp32_ops)
    conditional = default_conditional if conditional_fp32_ops is None else list(conditional_fp32_ops)
    cond = [c[0] for c in conditional]
    for (name_a, a), (name_b, b) in ((("target_dtype_ops", lp16), ("fp32_ops", fp32)),
                                     (("target_dtype_ops", lp16), ("conditional_fp32_ops", cond)),
                                     (("fp32_ops", fp32), ("conditional_fp32_ops", cond))):
        common = set(a) & set(b)
        assert not common, "Ops cannot be in two or more lists: %s are in %s and %s" % (sorted(common), name_a,
                                                                                        name_b)
    allowed = set(list_lp16_ops(target) + list_fp32_ops(target) + list_lp16_fp32_ops(target)
                  + [c[0] for c in default_conditional])
    illegal = set(lp16) | set(fp32) | set(cond)
    illegal -= allowed
    assert not illegal, ("ops %s are in none of amp.list_lp16_ops, list_fp32_ops, list_lp16_fp32_ops and "
                         "list_conditional_fp32_ops (%s); only those can be moved between lists"
                         % (sorted(illegal), target))
    return lp16, fp32, [(op, attr, list(vals)) for op, attr, vals in conditional]


def _convert(sym, target, target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names,
             data_names, cast_optional_params):
    """(converted graph handle, parameters now stored in 16 bits). As MXNet's convert_symbol, the
    lists given replace the defaults (symnet::amp::AmpOptions::replace_lists): an op in none of
    the target, float32 and conditional lists runs in whatever dtype reaches it, unless it is a
    widest-type op."""
    lp16, fp32, cond = _check_op_lists(target, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                                       excluded_sym_names)
    return _core.amp_convert(sym.handle, target, lp16, fp32, cond, list(excluded_sym_names or []),
                             list(data_names or []), bool(cast_optional_params), True)


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                   conditional_fp32_ops=None, excluded_sym_names=None, data_names=None,
                   cast_optional_params=False):
    """The mixed-precision version of `sym` (see symnet::amp::ReducePrecision). target_dtype_ops,
    fp32_ops and conditional_fp32_ops replace AMP's default lists, as in MXNet; lists that
    conflict (an op in two of them, an op AMP cannot move) raise AssertionError, as in MXNet."""
    from ...symbol import Symbol
    target = _target(target_dtype)
    if data_names is None:
        # MXNet's default: an input without a declared dtype is data (fed in float32); the
        # declared ones are parameters, which cast_optional_params may keep in the 16-bit dtype
        attrs = sym.attr_dict()
        data_names = [n for n in sym.list_inputs() if "__dtype__" not in attrs.get(n, {})]
    handle, _ = _convert(sym, target, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, data_names, cast_optional_params)
    out = Symbol(handle)
    return infer_unknown(sym, out, target, data_names) if cast_optional_params else out


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None,
                  fp32_ops=None, conditional_fp32_ops=None, excluded_sym_names=None,
                  data_names=None, cast_optional_params=False):
    """(converted symbol, arg_params, aux_params). As MXNet's, every parameter comes back in the
    dtype the converted graph infers for it with the data in float32: the 16-bit dtype for one a
    neutral op reads next to 16-bit data (FullyConnected after a 16-bit Convolution when
    target_dtype_ops=["Convolution"]), and, with cast_optional_params, for one that only feeds
    16-bit ops. data_names (symnet's addition) defaults, as MXNet decides, to the inputs that are
    neither in arg_params nor in aux_params."""
    from ...symbol import Symbol
    target = _target(target_dtype)
    if data_names is None:
        data_names = [n for n in sym.list_inputs() if n not in arg_params and n not in aux_params]
    data_names = list(data_names)
    handle, low = _convert(sym, target, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                           excluded_sym_names, data_names, cast_optional_params)
    out = Symbol(handle)
    if cast_optional_params:
        out = infer_unknown(sym, out, target, data_names)
    low = set(low)
    inferred = {}
    try:
        arg_types, _, aux_types = out.infer_type_partial(**{n: "float32" for n in data_names})
        inferred = dict(zip(out.list_arguments(), arg_types))
        inferred.update(zip(out.list_auxiliary_states(), aux_types))
    except Exception:  # noqa: BLE001 (a graph whose dtypes stay open keeps the params as they are)
        pass

    def cast(name, value):
        want = target if name in low else inferred.get(name)
        if want is None or dtype_name(want) == dtype_name(value.dtype):
            return value
        return value.astype(dtype_name(want))

    new_args = {k: cast(k, v) for k, v in arg_params.items()}
    new_aux = {k: cast(k, v) for k, v in aux_params.items()}
    return out, new_args, new_aux


def init_trainer(trainer, loss_scaler=None):
    """Attaches dynamic loss scaling (a LossScaler, default settings) to a trainer or Module and
    makes its optimizer keep float32 master weights for 16-bit parameters."""
    scaler = loss_scaler or LossScaler()
    trainer._amp_loss_scaler = scaler
    # a Gluon Trainer's gradient scale before scale_loss changes it (MXNet's attribute name)
    trainer._amp_original_scale = getattr(trainer, "_scale", 1.0)
    opt = getattr(trainer, "optimizer", None) or getattr(trainer, "_optimizer", None)
    if opt is not None:
        opt.multi_precision = True
    return scaler


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Gluon AMP: yields the loss (or list of losses) times the loss scale, to call backward
    on; the trainer divides the gradients by the same scale when it steps (MXNet's recipe)."""
    trainer = optimizer_or_trainer
    scaler = getattr(trainer, "_amp_loss_scaler", None)
    if scaler is None:
        raise ValueError("scale_loss: call amp.init_trainer(trainer) first")
    trainer._scale = trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield loss * scaler.loss_scale


def unscale(optimizer_or_trainer):
    """Divides a Gluon trainer's gradients by the loss scale in place (to clip or inspect them
    before step); the step then applies no scale of its own."""
    trainer = optimizer_or_trainer
    scaler = getattr(trainer, "_amp_loss_scaler", None)
    if scaler is None:
        raise ValueError("unscale: call amp.init_trainer(trainer) first")
    inv = 1.0 / scaler.loss_scale
    for p in trainer._params:
        if p.grad_req != "null":
            for g in p.list_grad():
                g *= inv
    trainer._scale = trainer._amp_original_scale


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None,
                         cast_optional_params=False):
    """A hybridized block whose graph runs in mixed precision: returns a SymbolBlock of the
    converted graph (run the block once first so its graph is known). It shares the block's
    parameters, unless cast_optional_params gives some of them the 16-bit dtype: then, as in
    MXNet, the new block has its own parameters, holding the block's values cast to the dtypes
    the converted graph declares, on `ctx` (default: the contexts of the block's parameters)."""
    from ...gluon.block import SymbolBlock
    from ... import symbol as _sym
    if getattr(block, "_cached", None) is None:
        raise RuntimeError("convert_hybrid_block: hybridize() the block and run it once first")
    graph = block._cached[0]
    sym = convert_symbol(graph.symbol, target_dtype, target_dtype_ops, fp32_ops,
                         conditional_fp32_ops, excluded_sym_names, data_names=graph.input_names,
                         cast_optional_params=cast_optional_params)
    inputs = [_sym.var(n) for n in graph.input_names]
    params = block.collect_params()
    attrs = sym.attr_dict()
    arg_types, _, aux_types = sym.infer_type_partial()
    recast = {}
    for names, types in ((sym.list_arguments(), arg_types), (sym.list_auxiliary_states(), aux_types)):
        for name, t in zip(names, types):
            if (name in params and t is not None and "__dtype__" in attrs.get(name, {})
                    and dtype_name(t) != dtype_name(params[name].dtype)):
                recast[name] = dtype_name(t)
    if not recast:
        return SymbolBlock(sym, inputs, params=params)
    out = SymbolBlock(sym, inputs)
    for name, p in out.collect_params().items():
        src = params[name]
        p.cast(recast.get(name, src.dtype))
        value = src._reduce()
        p._init_from(value if dtype_name(value.dtype) == p.dtype else value.astype(p.dtype),
                     ctx if ctx is not None else src.list_ctx())
    return out


def _lists(target_dtype):
    return _core.amp_lists(_target(target_dtype))


def list_lp16_ops(target_dtype="float16"):
    """Ops that run in the 16-bit target dtype."""
    return sorted(k for k, v in _lists(target_dtype).items() if v == "target")


def list_fp32_ops(target_dtype="float16"):
    """Ops that always run in float32."""
    return sorted(k for k, v in _lists(target_dtype).items() if v == "fp32")


def list_lp16_fp32_ops(target_dtype="float16"):
    """Neutral ops: they run in whatever dtype their inputs have. As in MXNet, the ops of
    list_conditional_fp32_ops (neutral unless an attribute asks for float32) are listed there
    only, so that every op is in exactly one list."""
    conditional = {r[0] for r in _core.amp_conditional(_target(target_dtype))}
    return sorted(k for k, v in _lists(target_dtype).items() if v == "neutral" and k not in conditional)


def list_widest_type_cast(target_dtype="float16"):
    """Ops whose inputs are cast to the widest dtype among them."""
    return sorted(k for k, v in _lists(target_dtype).items() if v == "widest")


def list_conditional_fp32_ops(target_dtype="float16"):
    """(op, attribute, values) that make an op run in float32."""
    return [tuple(r) for r in _core.amp_conditional(_target(target_dtype))]


# MXNet's amp module holds the lists package as an attribute (amp.lists.symbol_bf16.BF16_FUNCS);
# imported last because the lists are read through the functions above
from . import lists  # noqa: E402,F401
