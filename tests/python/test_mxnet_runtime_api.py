"""The runtime API that MXNet 1.9.1 scripts, MXNet's own tests and libraries on MXNet use:
mx.base's names, mx.util (NumPy-semantics switches, environment, GPUs), mx.runtime.Features,
the mx.np / mx.npx placeholders, cpu_shared/cpu_pinned contexts, NDArray pickling (MXNet's
state format), tostype and reshape's special values, mx.registry and mx.optimizer.register, and
gluon.utils (download without a network: file:// and a loopback HTTP server)."""
import copy
import functools
import hashlib
import http.server
import os
import pickle
import socket
import struct
import threading

import numpy as np
import pytest

import symnet as mx
from symnet import base, util

DATA = os.path.join(os.path.dirname(__file__), "data")


# ---- mx.base ---------------------------------------------------------------------------------
def test_base_type_tuples_and_helpers():
    assert base.py_str(b"caf\xc3\xa9") == "caf\u00e9"
    assert repr(base._Null) == "_Null" and isinstance(base._Null, base._NullType)
    assert isinstance("x", base.string_types) and not isinstance(b"x", base.string_types)
    for v in (3, np.int32(3), np.int64(3)):
        assert isinstance(v, base.integer_types)
    assert not isinstance(3.0, base.integer_types)
    for v in (3, 2.5, np.float16(1), np.int8(1)):
        assert isinstance(v, base.numeric_types)
    assert not isinstance("3", base.numeric_types)
    t = (1, 2)
    assert base._as_list(t) is t and base._as_list(3) == [3]


def test_data_dir_follows_mxnet_home(monkeypatch):
    monkeypatch.delenv("MXNET_HOME", raising=False)
    assert base.data_dir() == os.path.join(os.path.expanduser("~"), ".mxnet")
    assert base.data_dir_default() == base.data_dir()
    monkeypatch.setenv("MXNET_HOME", "/tmp/mxnet_data_dir_test")
    assert base.data_dir() == "/tmp/mxnet_data_dir_test"


def test_error_classes_and_register_error():
    def softmax(x):
        return x
    err = base.NotImplementedForSymbol(softmax, "SoftmaxOutput", 1, "a")
    assert isinstance(err, base.MXNetError) and isinstance(err, Exception)
    assert str(err) == ("Function softmax (namely operator \"SoftmaxOutput\") with arguments "
                        "(<class 'int'>, <class 'str'>) is not implemented for Symbol and only "
                        "available in NDArray.")
    sparse = base.NotSupportedForSparseNDArray(softmax, None)
    assert str(sparse) == "Function softmax is not supported for SparseNDArray and only available in NDArray."
    with pytest.raises(base.MXNetError):
        raise sparse
    assert base.error_types["NotImplementedForSymbol"] is base.NotImplementedForSymbol

    @base.register_error
    class _RuntimeApiTestError(RuntimeError):
        pass

    class _Other(RuntimeError):
        pass
    try:
        assert base.register_error("RuntimeApiAlias", _Other) is _Other
        assert base.error_types["_RuntimeApiTestError"] is _RuntimeApiTestError
        assert base.register_error("RuntimeApiAlias2")(_Other) is _Other
        assert base.error_types["RuntimeApiAlias"] is _Other
        assert base.error_types["RuntimeApiAlias2"] is _Other
    finally:
        for k in ("_RuntimeApiTestError", "RuntimeApiAlias", "RuntimeApiAlias2"):
            base.error_types.pop(k, None)


def test_classproperty_with_metaclass():
    class Holder(base.with_metaclass(base._MXClassPropertyMetaClass, object)):
        _value = 1

        @base.classproperty
        def value(cls):
            return cls._value * 10

        @value.setter
        def value(cls, v):
            cls._value = v

    assert type(Holder) is base._MXClassPropertyMetaClass
    assert Holder.__mro__[1:] == (object,)
    assert Holder.value == 10 and Holder().value == 10
    Holder.value = 4
    assert Holder._value == 4 and Holder.value == 40

    class ReadOnly(base.with_metaclass(base._MXClassPropertyMetaClass, object)):
        @base.classproperty
        def name(cls):
            return cls.__name__
    assert ReadOnly.name == "ReadOnly"
    with pytest.raises(base.MXNetError, match="cannot use the setter"):
        ReadOnly.name = "x"


def test_build_param_doc_as_mxnet():
    # MXNet 1.9.1 gives exactly this text for these arguments
    doc = base.build_param_doc(["a", "num_args", "b", "a"], ["int", "int", "float", "x"],
                               ["desc a", "", "", "dup"])
    assert doc == "Parameters\n----------\na : int\n    desc a\nb : float\n"
    assert "a : x" in base.build_param_doc(["a", "a"], ["int", "x"], ["", ""], remove_dup=False)


# ---- mx.util -----------------------------------------------------------------------------------
NP_MISSING = "symnet's NumPy interface \\(mx.np / mx.npx\\) is not implemented yet"


def test_numpy_shape_switches_set_a_per_thread_flag():
    assert mx.is_np_shape() is False and util.is_np_shape() is False
    assert mx.set_np_shape(False) is False
    with mx.np_shape(False):
        assert not mx.is_np_shape()
    with mx.np_shape(None):
        pass
    assert mx.set_np_shape(True) is False
    assert mx.is_np_shape() is True
    seen = []
    worker = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
    worker.start()
    worker.join()
    assert seen == [False]  # another thread keeps its own state, as MXNet's thread-local flag
    assert mx.set_np_shape(False) is True
    with mx.np_shape():
        assert mx.is_np_shape()
        with mx.np_shape(False):
            assert not mx.is_np_shape()
        assert mx.is_np_shape()
    assert mx.is_np_shape() is False
    util.set_np(shape=True, array=False)
    assert mx.is_np_shape() and not mx.is_np_array()
    with pytest.raises(NotImplementedError, match=NP_MISSING):
        util.set_np()
    with pytest.raises(ValueError, match="required"):
        util.set_np(shape=False, array=True)
    util.reset_np()
    assert not mx.is_np_array()
    with mx.np_array(False):
        assert not mx.is_np_array()
    with pytest.raises(NotImplementedError, match=NP_MISSING):
        with mx.np_array(True):
            pass
    assert util.is_np_default_dtype() is False and util.set_np_default_dtype(False) is False
    with pytest.raises(NotImplementedError):
        util.set_np_default_dtype(True)


def test_use_np_decorators_decorate_and_array_ones_raise_when_called():
    calls = []

    @mx.use_np_shape
    def scalar_one():
        calls.append(1)
        return 1

    @mx.use_np
    class Net:
        def __init__(self):
            calls.append("init")

        def forward(self, x):
            return x

        @property
        def width(self):
            return 3

        @staticmethod
        def make():
            return 1

    @mx.use_np_shape
    def shape_mode():
        return mx.is_np_shape()

    assert scalar_one.__name__ == "scalar_one"
    assert scalar_one() == 1 and shape_mode() is True and mx.is_np_shape() is False
    calls.clear()
    with pytest.raises(NotImplementedError, match=NP_MISSING):
        Net()
    obj = object.__new__(Net)
    with pytest.raises(NotImplementedError):
        obj.forward(1)
    with pytest.raises(NotImplementedError):
        obj.width
    assert calls == []
    for deco in (util.use_np_array, util.use_np_default_dtype):
        f = deco(lambda: 1)
        with pytest.raises(NotImplementedError):
            f()
    with pytest.raises(TypeError, match="use_np_shape can only decorate"):
        mx.use_np_shape(3)


def test_util_environment_is_the_c_runtime_one(monkeypatch):
    name = "SYMNET_RUNTIME_API_TEST_VAR"
    monkeypatch.delenv(name, raising=False)
    try:
        assert util.getenv(name) is None
        util.setenv(name, "42")
        assert util.getenv(name) == "42"
        assert os.environ.get(name) is None  # as MXNet: only the C runtime's copy changes
        util.setenv(name, None)
        assert util.getenv(name) is None
        monkeypatch.setenv(name, "7")  # os.environ writes through to the C runtime
        assert util.getenv(name) == "7"
    finally:
        util.setenv(name, None)


def test_util_gpus_set_module_and_dtypes():
    assert util.get_gpu_count() == mx.context.num_gpus()
    with pytest.raises(ValueError, match="Expecting a gpu context"):
        util.get_cuda_compute_capability(mx.cpu())
    if util.get_gpu_count() == 0:
        with pytest.raises((OSError, RuntimeError)):
            util.get_cuda_compute_capability(mx.gpu(0))
    else:
        assert util.get_cuda_compute_capability(mx.gpu(0)) >= 30
        free, total = util.get_gpu_memory(0)
        assert 0 < free <= total

    @util.set_module("mxnet.numpy")
    def f():
        pass
    assert f.__module__ == "mxnet.numpy"
    assert util.dtype_from_number(True) is np.bool_
    assert util.dtype_from_number(3) is np.int64
    assert util.dtype_from_number(1.5) is np.float32
    assert util.dtype_from_number(np.float16(1)) == np.float16
    with pytest.raises(TypeError):
        util.dtype_from_number("1")
    a = util.default_array([1, 2], dtype="int32")
    assert isinstance(a, mx.nd.NDArray) and a.dtype == np.int32


def test_top_level_names_as_mxnet():
    for name in ("is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "is_np_array",
                 "np_array", "use_np_array", "use_np"):
        assert getattr(mx, name) is getattr(util, name), name
    assert mx.util is util and mx.cpu_pinned(1).device_type == "cpu_pinned"


# ---- mx.runtime ----------------------------------------------------------------------------------
MXNET_FEATURES = [
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
    "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C",
    "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV",
    "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG",
    "TVM_OP"]


def test_runtime_features_as_mxnet():
    from symnet.runtime import Feature, Features, feature_list
    features = Features()
    assert features is Features()
    assert list(features) == MXNET_FEATURES
    for name, f in features.items():
        assert isinstance(f, Feature) and f.name == name
        assert features.is_enabled(name) == f.enabled
        assert features.is_enabled(name.lower()) == f.enabled
    with pytest.raises(RuntimeError, match="Feature 'THIS GIRL IS ON FIRE' is unknown"):
        features.is_enabled("this girl is on fire")
    assert [f.name for f in feature_list()] == MXNET_FEATURES
    assert repr(features).startswith("[") and "\u2714 MKLDNN" in repr(features)


def test_runtime_features_say_what_symnet_has():
    from symnet import _core
    from symnet.runtime import Features
    features, core = Features(), mx.features()
    assert features.is_enabled("MKLDNN")
    assert features.is_enabled("CUDA") == (core["CUDA"] == "1")
    assert features.is_enabled("NCCL") == (core["NCCL"] == "1")
    assert features.is_enabled("F16C") == (core["F16C"] == "1")
    assert features.is_enabled("DIST_KVSTORE") == bool(_core.dist.available())
    isa = core["DNNL_ISA"]
    assert features.is_enabled("CPU_AVX2") == isa.startswith(("avx2", "avx512"))
    assert features.is_enabled("CPU_AVX") == isa.startswith("avx")
    for absent in ("TENSORRT", "CUDA_RTC", "BLAS_OPEN", "BLAS_MKL", "LAPACK", "OPENCV", "TVM_OP",
                   "CPU_SSE4A", "JEMALLOC", "CAFFE"):
        assert not features.is_enabled(absent), absent


# ---- mx.np / mx.npx ------------------------------------------------------------------------------
def test_numpy_namespaces_import_and_name_the_missing_interface():
    import symnet.numpy as mx_np
    import symnet.numpy_extension as mx_npx
    from symnet import np as np_, npx
    assert mx.np is mx_np is np_ is mx.numpy and mx.npx is mx_npx is npx is mx.numpy_extension
    with pytest.raises(AttributeError, match="^mx.np.array: symnet does not implement MXNet's "
                                             "NumPy interface yet$"):
        mx.np.array([1, 2])
    assert not hasattr(mx.np, "ndarray")
    with pytest.raises(ImportError):
        from symnet.numpy import ndarray  # noqa: F401
    with pytest.raises(AttributeError, match="^mx.npx.relu: symnet does not implement"):
        mx.npx.relu
    with pytest.raises(NotImplementedError, match=NP_MISSING):
        mx.npx.set_np()
    mx.npx.reset_np()
    assert mx.npx.is_np_array() is False and mx.npx.cpu() == mx.cpu()


# ---- contexts -----------------------------------------------------------------------------------
def test_cpu_shared_and_pinned_contexts():
    ctx = mx.Context("cpu_shared", 0)
    assert repr(ctx) == str(ctx) == "cpu_shared(0)" and ctx.device_typeid == 5
    assert ctx == mx.Context("cpu_shared", 0) and ctx != mx.cpu(0)
    assert hash(ctx) == hash(mx.Context(ctx)) and mx.Context(ctx) == ctx
    assert mx.Context.devtype2str[5] == "cpu_shared" and mx.Context.devstr2type["cpu_pinned"] == 3
    assert repr(mx.cpu_pinned(1)) == "cpu_pinned(1)" and mx.cpu_pinned(1) != mx.cpu(1)
    with pytest.raises(ValueError, match="cpu_shared"):
        mx.Context("tpu", 0)
    for c in (ctx, mx.cpu_pinned(0)):
        a = mx.nd.array(np.arange(6.0).reshape(1, 2, 3), ctx=c)
        assert a.context == c and mx.nd.zeros((1, 2, 3), ctx=c).context == c
        assert a.reshape((3, 2)).context == c and a[0].context == c
        np.testing.assert_array_equal((a * 2).asnumpy(), np.arange(6.0).reshape(1, 2, 3) * 2)
        b = a.as_in_context(mx.cpu())
        assert b.context == mx.cpu() and a.as_in_context(c) is a
        np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())


def test_host_kinds_mix_in_ops_and_load_as_mxnet(tmp_path):
    shared = mx.nd.ones((2,), ctx=mx.Context("cpu_shared", 0))
    pinned = mx.nd.ones((2,), ctx=mx.cpu_pinned(1))
    assert (shared + mx.nd.ones((2,))).context == mx.cpu(0)
    assert (pinned + shared).context == mx.cpu(1)
    assert (shared * 2).context == mx.cpu(0)  # as MXNet: host kinds do not propagate
    assert (mx.nd.ones((2,), ctx=mx.cpu(1)) + mx.nd.ones((2,))).context == mx.cpu(1)
    # the .params file MXNet's nd.save writes for a cpu_shared array (device type 5)
    record = bytes(shared.__getstate__()["handle"])
    path = tmp_path / "shared.params"
    path.write_bytes(struct.pack("<QQQ", 0x112, 0, 1) + record + struct.pack("<Q", 0))
    np.testing.assert_array_equal(mx.nd.load(str(path))[0].asnumpy(), [1, 1])
    # out= on another host kind is fine: MXNet keeps the out array's kind, as nd.zeros does
    out = mx.nd.zeros((2,), ctx=mx.cpu_pinned(2))
    mx.nd.elemwise_add(shared, pinned, out=out)
    assert out.context == mx.cpu_pinned(2) and out.asnumpy().tolist() == [2, 2]
    assert mx.nd.zeros((2,), ctx=mx.Context("cpu_shared", 0)).context == mx.Context("cpu_shared", 0)


# ---- NDArray: pickle, deepcopy, tostype, reshape ---------------------------------------------------
def _state_record(state):
    assert set(state) == {"handle"} and isinstance(state["handle"], bytearray)
    return bytes(state["handle"])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int8", "int32",
                                   "int64", "bfloat16"])
def test_pickle_round_trip(dtype):
    src = np.arange(-6, 6).reshape(3, 4) / 2
    a = mx.nd.array(src, dtype=dtype)
    # MXNet's reduce form, which both libraries unpickle: NDArray(None), then __setstate__
    assert a.__reduce__()[:2] == (mx.nd.NDArray, (None,))
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        b = pickle.loads(pickle.dumps(a, protocol=protocol))
        assert type(b) is mx.nd.NDArray and b.dtype == a.dtype and b.shape == (3, 4)
        assert b.context == mx.cpu(0)
        np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())
    _state_record(a.__getstate__())


def test_pickle_state_is_mxnet_record_with_the_context():
    a = mx.nd.array([[1, 2], [3, 4]], dtype="int32", ctx=mx.Context("cpu_shared", 0))
    record = _state_record(a.__getstate__())
    # MXNet's V2 record: magic, dense storage, ndim 2, int64 dims, device (5 = cpu_shared, 0),
    # dtype flag 4 (int32), then the data
    head = np.frombuffer(record[:12], "<u4").tolist() + np.frombuffer(record[12:28], "<i8").tolist()
    assert head == [0xF993FAC9, 0, 2, 2, 2]
    assert np.frombuffer(record[28:40], "<i4").tolist() == [5, 0, 4]
    assert np.frombuffer(record[40:], "<i4").tolist() == [1, 2, 3, 4]
    b = pickle.loads(pickle.dumps(a))
    assert b.context == mx.cpu(0)  # as MXNet: host kinds load on cpu(0)
    np.testing.assert_array_equal(b.asnumpy(), [[1, 2], [3, 4]])


class _MXNetPickle(pickle.Unpickler):
    """Unpickles a file MXNet wrote, with `mxnet` standing for symnet (what the mxnet alias
    package does) or, with raw=True, keeping each NDArray's state as MXNet wrote it."""

    def __init__(self, f, raw=False):
        super().__init__(f)
        self.raw = raw

    def find_class(self, module, name):
        if module == "mxnet.ndarray.ndarray" and name == "NDArray":
            if self.raw:
                return _RawState
            return mx.nd.NDArray
        return super().find_class(module, name)


class _RawState:
    def __init__(self, handle):
        pass

    def __setstate__(self, state):
        self.state = state


def test_unpickles_arrays_pickled_by_mxnet_1_9_1():
    path = os.path.join(DATA, "mxnet191_ndarray.pickle")
    with open(path, "rb") as f:
        arrays = _MXNetPickle(f).load()
    expect = {
        "f32_cpu": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "i32_cpu_shared": np.arange(-3, 3, dtype=np.int32),
        "f16_cpu_pinned": np.linspace(-1, 1, 4, dtype=np.float16).reshape(1, 2, 2),
        "i64_cpu": (np.arange(3) * 10 ** 10).astype(np.int64),
    }
    assert sorted(arrays) == sorted(expect)
    for k, v in expect.items():
        assert arrays[k].dtype == v.dtype and arrays[k].shape == v.shape, k
        assert arrays[k].context == mx.cpu(0), k
        np.testing.assert_array_equal(arrays[k].asnumpy(), v)
    # and symnet's state of the same arrays is byte for byte what MXNet wrote
    with open(path, "rb") as f:
        raw = _MXNetPickle(f, raw=True).load()
    for k in ("f32_cpu", "i64_cpu"):
        assert _state_record(arrays[k].__getstate__()) == bytes(raw[k].state["handle"]), k
    shared = mx.nd.array(expect["i32_cpu_shared"], dtype="int32", ctx=mx.Context("cpu_shared", 0))
    assert _state_record(shared.__getstate__()) == bytes(raw["i32_cpu_shared"].state["handle"])


def test_deepcopy_and_copy_are_independent_arrays():
    a = mx.nd.array(np.arange(6).reshape(2, 3), dtype="float16")
    for b in (copy.deepcopy(a), copy.copy(a), copy.deepcopy([a])[0]):
        assert b is not a and b.dtype == np.float16 and b.shape == (2, 3) and b.context == a.context
        b[:] = -1
        np.testing.assert_array_equal(a.asnumpy(), np.arange(6).reshape(2, 3))


@pytest.mark.skipif(mx.context.num_gpus() == 0, reason="no GPU")
def test_pickle_keeps_a_gpu_array_on_its_gpu():
    a = mx.nd.array([1.0, 2.0], ctx=mx.gpu(0))
    b = pickle.loads(pickle.dumps(a))
    assert b.context == mx.gpu(0)
    np.testing.assert_array_equal(b.asnumpy(), [1.0, 2.0])
    assert copy.deepcopy(a).context == mx.gpu(0)


def test_tostype():
    a = mx.nd.array([[1, 2], [3, 4]])
    d = a.tostype("default")
    assert d is not a and d.stype == "default"
    d[:] = 0
    np.testing.assert_array_equal(a.asnumpy(), [[1, 2], [3, 4]])
    for stype in ("csr", "row_sparse"):
        with pytest.raises(mx.base.MXNetError, match="storage type '%s'" % stype):
            a.tostype(stype)
    with pytest.raises(ValueError, match="2 Dimensional"):
        mx.nd.ones((3,)).tostype("csr")
    with pytest.raises(ValueError, match="unknown storage type"):
        a.tostype("dense")
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x.tostype("default") * 3).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3, 3])


# (shape, reverse, result) for an input of shape (2, 3, 4), as MXNet 1.9.1 gives them
RESHAPES = [
    ((0, -1), False, (2, 12)), ((-1, 0), True, (6, 4)), ((-1, 0), False, (8, 3)),
    ((-3, -2), False, (6, 4)), ((-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, -4, -1, 3, -2), False, (2, 1, 3, 4)), ((0, 0, -1), False, (2, 3, 4)),
    ((-2,), False, (2, 3, 4)), ((-1,), False, (24,)), ((4, -1), False, (4, 6)),
    ((0, -4, -1, 1, 0), False, (2, 3, 1, 4)), ((-3, -1), True, (6, 4)),
]


@pytest.mark.parametrize("shape,reverse,result", RESHAPES)
def test_reshape_special_values_in_every_form(shape, reverse, result):
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    kw = {"reverse": True} if reverse else {}
    for y in (x.reshape(shape, **kw), x.reshape(*shape, **kw), x.reshape(shape=shape, **kw),
              x.reshape(list(shape), **kw)):
        assert y.shape == result
        np.testing.assert_array_equal(y.asnumpy(), np.arange(24).reshape(result))
    x.attach_grad()
    with mx.autograd.record():
        y = x.reshape(shape, **kw)
        assert y.shape == result
        z = (y * mx.nd.array(np.arange(24).reshape(result))).sum()
    z.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.arange(24).reshape(2, 3, 4))


def test_reshape_is_a_view_and_refuses_as_mxnet():
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    y = x.reshape((0, -1))
    y[0] = 7
    assert (x.asnumpy()[0] == 7).all() and (x.asnumpy()[1] != 7).all()
    assert x.reshape(np.int64(4), -1).shape == (4, 6) and x.reshape(24).shape == (24,)
    with pytest.raises(ValueError, match="Cannot reshape array of size 24 into shape"):
        x.reshape((5, -1))
    with pytest.raises(ValueError, match="Cannot reshape array of size 24"):
        x.reshape((7,))
    with pytest.raises(mx.base.MXNetError, match="only one dim can be inferred"):
        x.reshape((-1, -1))
    with pytest.raises(mx.base.MXNetError, match="past the last input dim"):
        x.reshape((0, 0, 0, 0))
    with pytest.raises(TypeError, match="unknown keywords in reshape: foo"):
        x.reshape((2, 12), foo=1)
    with pytest.raises(AssertionError, match="Shape must be provided"):
        x.reshape()


# ---- mx.registry and mx.optimizer.register -------------------------------------------------------
@pytest.fixture
def clean_optimizer_registry():
    before = dict(mx.optimizer.Optimizer.opt_registry)
    yield
    mx.optimizer.Optimizer.opt_registry.clear()
    mx.optimizer.Optimizer.opt_registry.update(before)


def test_optimizer_register_and_create(clean_optimizer_registry):
    from symnet.optimizer import Optimizer

    @mx.optimizer.register
    class RuntimeApiOpt(Optimizer):
        def __init__(self, flavour=1, **kwargs):
            super().__init__(**kwargs)
            self.flavour = flavour

    assert RuntimeApiOpt.__name__ == "RuntimeApiOpt"
    opt = mx.optimizer.create("runtimeapiopt", flavour=3, learning_rate=0.5)
    assert type(opt) is RuntimeApiOpt and opt.flavour == 3 and opt.lr == 0.5
    assert type(Optimizer.create_optimizer("RuntimeApiOpt")) is RuntimeApiOpt
    # one registry: mx.registry's factory for Optimizer sees it, and the other way round
    create = mx.registry.get_create_func(Optimizer, "optimizer")
    assert type(create("RUNTIMEAPIOPT")) is RuntimeApiOpt
    assert type(create("sgd", momentum=0.9)) is mx.optimizer.SGD
    assert "runtimeapiopt" in mx.registry.get_registry(Optimizer)

    class ViaRegistry(Optimizer):
        pass
    mx.registry.get_register_func(Optimizer, "optimizer")(ViaRegistry, "via_registry")
    assert type(mx.optimizer.create("via_registry")) is ViaRegistry
    with pytest.warns(UserWarning, match="overriding existing optimizer"):
        class RuntimeApiOpt(Optimizer):  # noqa: F811 (a second class of the same name)
            pass
        mx.optimizer.Optimizer.register(RuntimeApiOpt)
    assert mx.optimizer.create("runtimeapiopt").__class__ is RuntimeApiOpt
    with pytest.raises(ValueError, match="unknown optimizer 'nosuchopt'"):
        mx.optimizer.create("nosuchopt")


def test_optimizer_get_updater_updates_weights():
    sgd = mx.optimizer.create("sgd", learning_rate=0.5)
    updater = mx.optimizer.get_updater(sgd)
    w, g = mx.nd.array([1.0, 2.0]), mx.nd.array([1.0, -2.0])
    updater(0, g, w)
    np.testing.assert_allclose(w.asnumpy(), [0.5, 3.0])


def test_registry_register_alias_create():
    class Thing:
        def __init__(self, x=0):
            self.x = x

    class Foo(Thing):
        pass

    class Bar(Thing):
        pass
    register = mx.registry.get_register_func(Thing, "thing")
    alias = mx.registry.get_alias_func(Thing, "thing")
    create = mx.registry.get_create_func(Thing, "thing")
    assert register(Foo) is Foo and alias("b", "bee")(Bar) is Bar
    assert sorted(mx.registry.get_registry(Thing)) == ["b", "bee", "foo"]
    assert type(create("FOO")) is Foo and create("foo", 3).x == 3
    assert type(create("bee")) is Bar and create(thing="b", x=2).x == 2
    inst = Foo()
    assert create(inst) is inst
    assert create({"thing": "foo", "x": 5}).x == 5
    assert create('["bee", {"x": 6}]').x == 6 and create('{"thing": "foo", "x": 7}').x == 7
    with pytest.raises(AssertionError, match="already an instance"):
        create(inst, 1)
    with pytest.raises(AssertionError, match="nope is not registered"):
        create("nope")
    with pytest.raises(AssertionError, match="Can only register subclass of Thing"):
        register(int)
    with pytest.warns(UserWarning, match="overriding existing thing"):
        register(Bar, "foo")


# ---- gluon.utils ----------------------------------------------------------------------------------
U = mx.gluon.utils


def test_split_data_and_split_and_load_as_mxnet():
    x = mx.nd.array(np.arange(10).reshape(5, 2))
    parts = U.split_data(x, 3, even_split=False)
    assert [p.shape for p in parts] == [(2, 2), (2, 2), (1, 2)]
    np.testing.assert_array_equal(parts[2].asnumpy(), [[8, 9]])
    assert [p.shape for p in U.split_data(mx.nd.ones((2, 3)), 3, even_split=False)] == \
        [(1, 3), (1, 3), (0, 3)]
    assert [p.shape for p in U.split_data(x, 2, batch_axis=1)] == [(5, 1), (5, 1)]
    with pytest.raises(ValueError, match="cannot be evenly split into 3 slices"):
        U.split_data(x, 3)
    parts[0][:] = -1  # pieces along axis 0 are views, as in MXNet
    assert (x.asnumpy()[:2] == -1).all()
    loaded = U.split_and_load(np.arange(6).reshape(3, 2), [mx.cpu(0), mx.cpu(1)], even_split=False)
    assert [(p.shape, p.context, p.dtype) for p in loaded] == \
        [((2, 2), mx.cpu(0), np.float32), ((1, 2), mx.cpu(1), np.float32)]


def test_clip_global_norm_as_mxnet():
    a, b = mx.nd.array([3.0, 0.0]), mx.nd.array([[4.0]])
    norm = U.clip_global_norm([a, b], 1.0)
    assert isinstance(norm, float) and abs(norm - 5.0) < 1e-6
    np.testing.assert_allclose(a.asnumpy(), [0.6, 0.0], rtol=1e-5)
    a = mx.nd.array([3.0, 4.0])
    lazy = U.clip_global_norm([a], 10.0, check_isfinite=False)
    assert isinstance(lazy, mx.nd.NDArray) and lazy.shape == (1,)
    np.testing.assert_allclose(lazy.asnumpy(), [5.0])
    np.testing.assert_array_equal(a.asnumpy(), [3.0, 4.0])  # under max_norm: unchanged
    h = mx.nd.array([1.0, 1.0], dtype="float16")
    assert abs(U.clip_global_norm([h], 1.0) - 2 ** 0.5) < 1e-3 and h.dtype == np.float16
    np.testing.assert_allclose(h.asnumpy(), [0.7071, 0.7071], rtol=1e-3)
    inf = mx.nd.array([np.inf, 1.0])
    with pytest.warns(UserWarning, match="nan or inf is detected"):
        assert U.clip_global_norm([inf], 1.0) == np.inf
    assert np.isnan(inf.asnumpy()[0]) and inf.asnumpy()[1] == 0  # scaled anyway, as MXNet


def test_shape_is_known_and_repo_urls(monkeypatch):
    assert not U.shape_is_known((2, 0)) and not U.shape_is_known(())
    assert not U.shape_is_known(None) and U.shape_is_known((2, 3))
    with pytest.raises(AssertionError, match="cannot be less than 0"):
        U.shape_is_known((2, -1))
    monkeypatch.delenv("MXNET_GLUON_REPO", raising=False)
    assert U._get_repo_url() == "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:9/repo")
    assert U._get_repo_url() == "http://127.0.0.1:9/repo/"
    assert U._get_repo_file_url("gluon/models", "a.zip") == "http://127.0.0.1:9/repo/gluon/models/a.zip"
    assert U._brief_print_list(range(10)) == "'0', '1', '2', ..., '6', '7', '8', '9'"


def _sha1(data):
    return hashlib.sha1(data).hexdigest()


def test_check_sha1_and_replace_file(tmp_path):
    f = tmp_path / "a.bin"
    f.write_bytes(b"abc" * 1000)
    assert U.check_sha1(str(f), _sha1(b"abc" * 1000))
    assert not U.check_sha1(str(f), _sha1(b"abd"))
    g = tmp_path / "b.bin"
    g.write_bytes(b"old")
    U.replace_file(str(f), str(g))
    assert g.read_bytes() == b"abc" * 1000 and not f.exists()
    f.write_bytes(b"x")
    with pytest.raises(OSError, match="Please retry the download"):
        U.replace_file(str(f), str(tmp_path / "missing_dir" / "c.bin"))
    assert not f.exists()  # the source is removed on failure


def _files(folder):
    return sorted(os.listdir(folder))


def test_download_file_url(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    payload = os.urandom(3000)
    (src / "weights.params").write_bytes(payload)
    url = (src / "weights.params").as_uri()
    dst = tmp_path / "dst"
    dst.mkdir()
    out = U.download(url, path=str(dst), sha1_hash=_sha1(payload))
    assert out == str(dst / "weights.params") and open(out, "rb").read() == payload
    # an existing file is kept unless overwrite, or unless its hash is wrong
    (dst / "weights.params").write_bytes(b"stale")
    U.download(url, path=str(dst))
    assert (dst / "weights.params").read_bytes() == b"stale"
    U.download(url, path=str(dst), sha1_hash=_sha1(payload))
    assert (dst / "weights.params").read_bytes() == payload
    (dst / "weights.params").write_bytes(b"stale")
    U.download(url, path=str(dst / "weights.params"), overwrite=True)
    assert (dst / "weights.params").read_bytes() == payload
    with pytest.raises(UserWarning, match="content hash does not match"):
        U.download(url, path=str(dst / "other.params"), sha1_hash=_sha1(b"something else"), retries=1)
    assert _files(dst) == ["other.params", "weights.params"]  # no temporary files left
    with pytest.warns(UserWarning, match="Unverified HTTPS request"):
        U.download(url, path=str(dst / "third.params"), verify_ssl=False)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert U.download(url) == "weights.params" and (tmp_path / "weights.params").exists()
    finally:
        os.chdir(cwd)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_download_from_a_loopback_http_server(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    payload = os.urandom(200000)
    (served / "data.bin").write_bytes(payload)
    handler = functools.partial(_Quiet, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.timeout = 5
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        base_url = "http://127.0.0.1:%d/" % server.server_address[1]
        out = U.download(base_url + "data.bin", path=str(tmp_path / "got.bin"), sha1_hash=_sha1(payload))
        assert open(out, "rb").read() == payload
        missing = base_url + "nothing_here.bin"
        with pytest.raises(RuntimeError, match="Failed downloading url %s" % missing):
            U.download(missing, path=str(tmp_path / "x.bin"), retries=1)
        assert not (tmp_path / "x.bin").exists()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def _closed_loopback_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connecting is refused at once
    return port


def test_download_unreachable_server_names_the_url(tmp_path, capsys):
    url = "http://127.0.0.1:%d/model.params" % _closed_loopback_port()
    with pytest.raises(RuntimeError, match="Failed downloading url %s after 3 attempts" % url):
        U.download(url, path=str(tmp_path / "m.params"), retries=3)
    assert capsys.readouterr().out.count("Downloading") == 3
    assert _files(tmp_path) == []
    with pytest.raises(RuntimeError, match="after 1 attempt:"):
        U.download(url, path=str(tmp_path / "m.params"), retries=0)
