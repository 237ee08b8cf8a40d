/*! \brief symnet::dist (collectives.h): start-up, the rank layout and the array collectives. */
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

#include "comm_thread.h"
#include "symnet/collectives.h"
#include "transport.h"
#include "watchdog.h"
#include "wire.h"

namespace symnet {
namespace dist {
namespace {

std::mutex g_init_mutex;
bool g_initialized = false, g_finalized = false;
bool g_multi = false;  // more than one rank: MPI is running
transport::Layout g_layout;

/*! \brief Cores for this rank's OpenMP threads: the launcher's binding when it bound the rank to
 *  some cores (Open MPI binds to a core for 2 ranks), else the machine's cores shared by the ranks
 *  on it. */
int ThreadsPerRank() {
  const int machine = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int bound = CPU_COUNT(&set);
    if (bound > 0 && bound < machine) return bound;
  }
  return std::max(1, machine / std::max(1, g_layout.local_size));
}

void CheckInitialized(const char* what) {
  SYMNET_CHECK(!InForkedChild()) << "dist::" << what
                                 << ": this process was forked from a rank (a data-loader "
                                    "worker?); only the rank itself takes part in collectives";
  SYMNET_CHECK(g_initialized && !g_finalized)
      << "dist::" << what
      << ": the distributed job is not running (call dist::Init, or "
         "create a 'dist_sync' kvstore, first)";
}

/*! \brief Every rank must pass arrays of the same shapes and dtypes: the collective would
 *  otherwise mix up bytes. Checked with one small all-gather before the data moves. */
void CheckSameOnEveryRank(const std::string& what, const std::string& signature) {
  if (!g_multi) return;
  const uint64_t mine = std::hash<std::string>()(signature);
  std::vector<uint64_t> all(g_layout.size);
  CommThread::Get().Run(std::string("checking the arrays of ") + what,
                        [&] { transport::AllGather(&mine, sizeof(mine), all.data()); });
  for (int r = 0; r < g_layout.size; ++r)
    SYMNET_CHECK(all[r] == mine)
        << "dist::" << what << ": rank " << r
        << " passes arrays of other shapes or dtypes than rank " << g_layout.rank << " ("
        << signature << "); every rank must make the same collective calls with the same arrays";
}

void CheckSameOnEveryRank(const char* what, const std::vector<NDArray>& arrays) {
  if (!g_multi) return;
  std::ostringstream sig;
  sig << arrays.size() << " arrays: ";
  for (const NDArray& a : arrays) sig << a.shape() << ':' << static_cast<int>(a.dtype()) << ';';
  CheckSameOnEveryRank(what, sig.str());
}

std::string Megabytes(size_t bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / 1048576.0 << " MB";
  return s.str();
}

}  // namespace

int MessageRank() { return g_layout.rank; }

bool Available() { return transport::Available(); }

void Init() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_initialized) return;
  SYMNET_CHECK(!g_finalized)
      << "dist::Init: the distributed job has already finished in this process";
  if (transport::LaunchedSize() != 1) {
    CommThread::Get().Run("starting MPI", [] {
      g_layout = transport::Init();
      StartWatchdog(g_layout);
    });
    g_multi = g_layout.size > 1;
  }
  if (std::getenv("OMP_NUM_THREADS") == nullptr && g_layout.local_size > 1)
    omp_set_num_threads(ThreadsPerRank());
  g_initialized = true;
  std::atexit(Finalize);  // a normal exit says goodbye to the other ranks' watchdogs
}

bool Initialized() { return g_initialized; }
int Rank() { return g_layout.rank; }
int Size() { return g_layout.size; }
int LocalRank() { return g_layout.local_rank; }
int LocalSize() { return g_layout.local_size; }

void AllReduceSum(const std::vector<NDArray>& arrays) {
  CheckInitialized("AllReduceSum");
  CheckSameOnEveryRank("AllReduceSum", arrays);
  if (!g_multi) return;
  for (auto wire :
       {transport::Wire::kFloat32, transport::Wire::kFloat64, transport::Wire::kInt64}) {
    std::vector<const NDArray*> group;
    size_t count = 0;
    for (const NDArray& a : arrays)
      if (!a.is_none() && WireOf(a.dtype()) == wire) {
        group.push_back(&a);
        count += static_cast<size_t>(a.Size());
      }
    if (group.empty()) continue;
    std::vector<char> buf;
    CommThread::Get().Run("all-reduce of " + std::to_string(group.size()) + " arrays (" +
                              Megabytes(count * DTypeSize(WireDType(wire))) + ")",
                          [&] { SumOverRanks(group, wire, &buf); });
  }
}

void AllReduceSum(double* values, size_t count, const std::string& what) {
  if (!g_initialized) Init();
  CheckInitialized("AllReduceSum");
  CheckSameOnEveryRank("AllReduceSum (" + what + ")", std::to_string(count) + " float64 values");
  if (!g_multi || count == 0) return;
  CommThread::Get().Run("all-reduce of " + what,
                        [&] { transport::AllReduceSum(values, count, transport::Wire::kFloat64); });
}

void Broadcast(const std::vector<NDArray>& arrays, int root) {
  CheckInitialized("Broadcast");
  SYMNET_CHECK(root >= 0 && root < g_layout.size)
      << "dist::Broadcast: root " << root << " is not a rank of this job of " << g_layout.size;
  CheckSameOnEveryRank("Broadcast", arrays);
  if (!g_multi) return;
  size_t bytes = 0;
  for (const NDArray& a : arrays) bytes += a.is_none() ? 0 : a.Bytes();
  std::vector<char> buf(bytes);
  size_t off = 0;
  for (const NDArray& a : arrays) {
    if (a.is_none()) continue;
    if (g_layout.rank == root) a.CopyToBuffer(buf.data() + off, a.dtype());
    off += a.Bytes();
  }
  CommThread::Get().Run(
      "broadcast of " + std::to_string(arrays.size()) + " arrays (" + Megabytes(bytes) + ")",
      [&] { transport::Broadcast(buf.data(), bytes, root); });
  off = 0;
  for (const NDArray& a : arrays) {
    if (a.is_none()) continue;
    if (g_layout.rank != root) a.CopyFromBuffer(buf.data() + off, a.dtype());
    off += a.Bytes();
  }
}

NDArray AllGather(const NDArray& a) {
  CheckInitialized("AllGather");
  SYMNET_CHECK(!a.is_none()) << "dist::AllGather: no array given";
  CheckSameOnEveryRank("AllGather", {a});
  std::vector<int64_t> dims{g_layout.size};
  for (int i = 0; i < a.shape().ndim(); ++i) dims.push_back(a.shape()[i]);
  NDArray out(Shape(dims), a.device(), a.dtype());
  std::vector<char> mine(a.Bytes()), all(a.Bytes() * g_layout.size);
  a.CopyToBuffer(mine.data(), a.dtype());
  if (g_multi) {
    CommThread::Get().Run("all-gather (" + Megabytes(mine.size()) + " per rank)",
                          [&] { transport::AllGather(mine.data(), mine.size(), all.data()); });
  } else {
    all = mine;
  }
  out.CopyFromBuffer(all.data(), a.dtype());
  return out;
}

void Barrier() {
  CheckInitialized("Barrier");
  if (g_multi) CommThread::Get().Run("barrier", [] { transport::Barrier(); });
}

bool Any(bool flag) {
  CheckInitialized("Any");
  if (!g_multi) return flag;
  int64_t v = flag ? 1 : 0;
  CommThread::Get().Run("all-reduce of a flag",
                        [&] { transport::AllReduceSum(&v, 1, transport::Wire::kInt64); });
  return v > 0;
}

void Finalize() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (!g_initialized || g_finalized || InForkedChild()) return;
  g_finalized = true;
  if (!g_multi) return;
  FinishWatchdog();
  // MPI_Finalize waits for every rank to get here, however long their work takes: no timeout
  CommThread::Get().Run(
      "finishing MPI", [] { transport::Finalize(); }, /*timed=*/false);
}

void AbortProcess(int code) { ExitWithoutFinishing(code); }

}  // namespace dist
}  // namespace symnet
