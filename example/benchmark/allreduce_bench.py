"""All-reduce bandwidth of symnet's MPI collectives next to Open MPI's own MPI_Allreduce, in one run.

    python3 example/benchmark/allreduce_bench.py [--ranks 2] [--max-mb 256] [--rounds 3]

Starts `mpirun -np N` twice per round, alternating: this script as symnet workers
(mx.kv 'dist_sync', _core.dist.allreduce_sum on one float32 array) and a plain C loop of
MPI_Allreduce (compiled here with mpicc: the osu_allreduce-style reference). Prints, per message
size, the median time of one all-reduce and the bus bandwidth, busbw = size * 2 (N - 1) / N / time
(what each rank sends and receives in a ring all-reduce; NCCL's convention), and symnet's time as
a ratio of MPI's.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

C_LOOP = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long max_bytes = atol(argv[1]);
  float* buf = calloc(max_bytes / 4, 4);
  if (rank == 0) printf("[");
  for (long bytes = 1024; bytes <= max_bytes; bytes *= 4) {
    int count = (int)(bytes / 4), iters = bytes < (1 << 20) ? 200 : bytes < (16 << 20) ? 20 : 4;
    for (int i = 0; i < 2; ++i) MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; ++i) MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    t = (MPI_Wtime() - t) / iters;
    if (rank == 0) printf("%s[%ld, %.9f]", bytes == 1024 ? "" : ", ", bytes, t);
  }
  if (rank == 0) printf("]\n");
  free(buf);
  MPI_Finalize();
  return 0;
}
"""


def worker(max_bytes):
    import numpy as np
    import symnet as mx
    from symnet import _core
    kv = mx.kv.create("dist_sync")
    out = []
    bytes_ = 1024
    while bytes_ <= max_bytes:
        a = mx.nd.array(np.zeros(bytes_ // 4, dtype=np.float32))
        iters = 200 if bytes_ < (1 << 20) else 20 if bytes_ < (16 << 20) else 4
        for _ in range(2):
            _core.dist.allreduce_sum([a.handle])
        kv.barrier()
        t = time.perf_counter()
        for _ in range(iters):
            _core.dist.allreduce_sum([a.handle])
        out.append([bytes_, (time.perf_counter() - t) / iters])
        bytes_ *= 4
    if kv.rank == 0:
        print(json.dumps(out))


def mpirun(ranks, cmd):
    full = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)] + cmd
    proc = subprocess.run(full, capture_output=True, text=True, check=True)
    line = [x for x in proc.stdout.splitlines() if x.startswith("[")][-1]
    return {b: t for b, t in json.loads(line)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--max-mb", type=int, default=256)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    max_bytes = args.max_mb << 20
    if args.worker:
        worker(max_bytes)
        return
    if shutil.which("mpicc") is None or shutil.which("mpirun") is None:
        sys.exit("needs mpicc and mpirun (apt-get install libopenmpi-dev openmpi-bin)")
    tmp = tempfile.mkdtemp()
    src, exe = os.path.join(tmp, "loop.c"), os.path.join(tmp, "loop")
    with open(src, "w") as f:
        f.write(C_LOOP)
    subprocess.run(["mpicc", "-O2", src, "-o", exe], check=True)
    sym, ref = [], []
    for _ in range(args.rounds):  # alternating, so that machine noise hits both alike
        sym.append(mpirun(args.ranks, [sys.executable, os.path.abspath(__file__), "--worker",
                                       "--max-mb", str(args.max_mb)]))
        ref.append(mpirun(args.ranks, [exe, str(max_bytes)]))
    n = args.ranks
    print("all-reduce of float32, %d ranks on this machine, median of %d rounds" % (n, args.rounds))
    print("%10s %12s %12s %14s %14s %8s" % ("bytes", "symnet us", "MPI us", "symnet GB/s", "MPI GB/s", "ratio"))
    for b in sorted(sym[0]):
        ts = sorted(r[b] for r in sym)[len(sym) // 2]
        tr = sorted(r[b] for r in ref)[len(ref) // 2]
        bus = b * 2.0 * (n - 1) / n / 1e9
        print("%10d %12.1f %12.1f %14.3f %14.3f %8.2f" % (b, ts * 1e6, tr * 1e6, bus / ts, bus / tr, ts / tr))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
