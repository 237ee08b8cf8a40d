"""What this symnet build and machine offer, under MXNet 1.9.1's feature names (mxnet.runtime):
Features() is an ordered {name: Feature} with .enabled, feature_list() the same as a list.

The values come from symnet.features() and say what symnet has, not what an MXNet build would:

- CUDA, CUDNN, NCCL: the CUDA backend (cuDNN is part of it) and NCCL as built.
- CPU_SSE ... CPU_AVX2, SSE: MXNet reports the instruction sets it was compiled for; symnet's
  heavy kernels are oneDNN's, which choose the instruction set at run time, so these say which
  ones oneDNN uses on this CPU (DNNL_ISA, lowered by ONEDNN_MAX_CPU_ISA). SSE4A (AMD only) is
  not an oneDNN ISA and stays off.
- MKLDNN: oneDNN (MKL-DNN's current name) is always in; OPENMP and F16C as the core reports.
- BLAS_*, LAPACK: off: symnet links no BLAS or LAPACK (dot and FullyConnected are oneDNN
  matmuls) and has no linalg operators that need LAPACK.
- OPENCV: off: images decode with libjpeg, without OpenCV.
- DIST_KVSTORE: the 'dist_sync' stores, over MPI when symnet was built with it (not
  ps-lite's parameter server: 'dist_async' is refused).
- PROFILER: mx.profiler records operator spans. CXX14: the core is C++17.
- INT64_TENSOR_SIZE: off: symnet's shapes are 64-bit but its kernels are not tested on arrays
  of 2**31 elements or more, which is what the flag promises.
- CUDA_RTC, TENSORRT, JEMALLOC, CAFFE, SIGNAL_HANDLER (MXNet's segfault backtraces), DEBUG
  (release builds) and TVM_OP: not in symnet.
"""
import collections
import platform

# MXNet 1.9.1's features in its order (libinfo.h)
_MXNET_FEATURES = (
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
    "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C",
    "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV",
    "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG",
    "TVM_OP")

# oneDNN's x86 ISA names from low to high, and the lowest one that implies each MXNet CPU flag
_DNNL_ISAS = ("sse41", "avx", "avx2", "avx2_vnni", "avx2_vnni_2", "avx512_core",
              "avx512_core_vnni", "avx512_core_bf16", "avx512_core_fp16", "avx512_core_amx",
              "avx512_core_amx_fp16")
_CPU_FLAG_MIN_ISA = {"CPU_SSE": "sse41", "CPU_SSE2": "sse41", "CPU_SSE3": "sse41",
                     "CPU_SSE4_1": "sse41", "CPU_SSE4_2": "avx", "CPU_AVX": "avx",
                     "CPU_AVX2": "avx2", "SSE": "sse41"}


class Feature:
    """One compile-time feature: .name and .enabled; repr '✔ NAME' or '✖ NAME' as MXNet's."""

    __slots__ = ("_name", "_enabled")

    def __init__(self, name, enabled):
        self._name = name
        self._enabled = bool(enabled)

    @property
    def name(self):
        return self._name

    @property
    def enabled(self):
        return self._enabled

    def __repr__(self):
        return ("\u2714 %s" if self.enabled else "\u2716 %s") % self.name


def _isa_level(isa):
    """Index of a oneDNN ISA name in _DNNL_ISAS; names it does not list (a newer oneDNN's) rank
    by the family their name starts with."""
    if isa in _DNNL_ISAS:
        return _DNNL_ISAS.index(isa)
    for prefix, level in (("avx512", "avx512_core"), ("avx2", "avx2"), ("avx", "avx")):
        if isa.startswith(prefix):
            return _DNNL_ISAS.index(level)
    return -1


def _values(core):
    """MXNet feature name -> enabled, from symnet.features()' table `core`."""
    def on(key):
        return core.get(key, "0") == "1"
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "i386")
    level = _isa_level(core.get("DNNL_ISA", "")) if x86 else -1
    from . import _core
    values = dict.fromkeys(_MXNET_FEATURES, False)
    values.update({
        "CUDA": on("CUDA"), "CUDNN": on("CUDNN"), "NCCL": on("NCCL"), "OPENMP": on("OPENMP"),
        "F16C": on("F16C"), "MKLDNN": on("DNNL"), "PROFILER": True, "CXX14": True,
        "DIST_KVSTORE": bool(_core.dist.available()),
    })
    for flag, isa in _CPU_FLAG_MIN_ISA.items():
        values[flag] = level >= _DNNL_ISAS.index(isa)
    return values


def feature_list():
    """The features as a list of Feature, in MXNet's order."""
    from . import features
    values = _values(features())
    return [Feature(name, values[name]) for name in _MXNET_FEATURES]


class Features(collections.OrderedDict):
    """{name: Feature} of this build, made once (Features() is Features(), as in MXNet)."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super().__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # filled once in __new__; OrderedDict.__init__ would add nothing
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature (any case) is on; RuntimeError naming the known features for an
        unknown name."""
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError("Feature '%s' is unknown, known features are: %s"
                               % (name, list(self.keys())))
        return self[name].enabled
