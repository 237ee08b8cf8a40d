/*! \brief symnet::dist without MPI: a job of one rank; a launcher's multi-rank job is refused. */
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "symnet/base.h"
#include "transport.h"

namespace symnet {
namespace dist {
namespace transport {

bool Available() { return false; }

Layout Init() {
  SYMNET_CHECK(LaunchedSize() == 1)
      << "an MPI launcher started this process as one rank of a job, but symnet was built "
         "without MPI: install libopenmpi-dev and rebuild (tools/setup.sh does both)";
  return Layout();
}

// a job of one rank: a sum, broadcast or gather over one rank leaves the data as it is
void AllReduceSum(void*, size_t, Wire) {}
void Broadcast(void*, size_t, int) {}
void AllGather(const void* in, size_t bytes, void* out) {
  if (bytes > 0) std::memcpy(out, in, bytes);
}
void Barrier() {}
void Finalize() {}

}  // namespace transport
}  // namespace dist
}  // namespace symnet
