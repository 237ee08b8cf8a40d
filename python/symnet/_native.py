"""Loads symnet's C++ core (_core and libsymnet.so). They link system libraries that a wheel does
not carry; when one is missing, the import error names it and the package that provides it."""
import re

# shared library -> where it comes from (Debian 12 package names; CUDA from /usr/local/cuda)
SYSTEM_LIBRARIES = {
    "libdnnl.so": "oneDNN: apt-get install libdnnl2 (or libdnnl-dev)",
    "libdmlc.so": "dmlc-core: apt-get install libdmlc0 (or libdmlc-dev)",
    "libjpeg.so": "libjpeg-turbo: apt-get install libjpeg62-turbo",
    "libmpi.so": "Open MPI (distributed training): apt-get install libopenmpi3",
    "libopen-": "Open MPI (distributed training): apt-get install libopenmpi3",
    "libgomp.so": "GCC's OpenMP runtime: apt-get install libgomp1",
    "libcudart.so": "the CUDA 13 runtime (this build has the GPU backend): the CUDA toolkit in "
                    "/usr/local/cuda, with /usr/local/cuda/lib64 on the library path",
    "libcublas": "cuBLAS (CUDA toolkit, /usr/local/cuda/lib64)",
    "libcudnn.so": "cuDNN 9 (/usr/local/cuda/lib64)",
    "libnccl.so": "NCCL (/usr/local/cuda/lib64)",
}


NEEDED = ("oneDNN 2.6, dmlc-core, libjpeg-turbo, Open MPI and OpenMP (libgomp), and in a build with "
          "the GPU backend the CUDA 13 runtime, cuBLAS, cuDNN 9 and NCCL (tools/setup.sh installs the "
          "Debian ones)")


def explain(error):
    """The ImportError to raise for `error` from importing _core: which library is missing and
    how to get it, or the error itself when it is something else."""
    m = re.search(r"([\w.+-]+\.so[\w.]*): cannot open shared object file", str(error))
    if not m:
        return error
    lib = m.group(1)
    where = next((v for k, v in SYSTEM_LIBRARIES.items() if lib.startswith(k)), "a system library")
    return ImportError("symnet cannot load its C++ core: the system library %s is missing; it comes "
                       "from %s. symnet needs %s." % (lib, where, NEEDED))
