/*! \brief symnet::dist's messages over MPI (Open MPI from Debian, or any MPI-3 library). */
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "symnet/base.h"
#include "transport.h"

namespace symnet {
namespace dist {
namespace transport {
namespace {

#define SYMNET_MPI_CALL(expr)                                                        \
  do {                                                                               \
    const int symnet_rc_ = (expr);                                                   \
    if (symnet_rc_ != MPI_SUCCESS) {                                                 \
      char symnet_msg_[MPI_MAX_ERROR_STRING];                                        \
      int symnet_len_ = 0;                                                           \
      MPI_Error_string(symnet_rc_, symnet_msg_, &symnet_len_);                       \
      SYMNET_THROW << #expr << " failed: " << std::string(symnet_msg_, symnet_len_); \
    }                                                                                \
  } while (0)

MPI_Datatype MpiType(Wire w) {
  switch (w) {
    case Wire::kFloat32:
      return MPI_FLOAT;
    case Wire::kFloat64:
      return MPI_DOUBLE;
    case Wire::kInt64:
      return MPI_INT64_T;
  }
  return MPI_FLOAT;
}

size_t WireSize(Wire w) { return w == Wire::kFloat32 ? 4 : 8; }

// MPI counts are int: larger messages go in pieces
constexpr size_t kMaxCount = static_cast<size_t>(INT_MAX) / 8;

}  // namespace

bool Available() { return true; }

Layout Init() {
  int provided = 0;
  SYMNET_MPI_CALL(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
  SYMNET_CHECK(provided >= MPI_THREAD_FUNNELED)
      << "the MPI library gives thread level " << provided
      << ", symnet needs MPI_THREAD_FUNNELED (its MPI calls run on a thread of their own)";
  // errors come back as codes (and become symnet errors) instead of aborting the job silently
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Layout l;
  SYMNET_MPI_CALL(MPI_Comm_rank(MPI_COMM_WORLD, &l.rank));
  SYMNET_MPI_CALL(MPI_Comm_size(MPI_COMM_WORLD, &l.size));
  MPI_Comm local;
  SYMNET_MPI_CALL(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, l.rank, MPI_INFO_NULL, &local));
  SYMNET_MPI_CALL(MPI_Comm_rank(local, &l.local_rank));
  SYMNET_MPI_CALL(MPI_Comm_size(local, &l.local_size));
  MPI_Comm_free(&local);
  return l;
}

void AllReduceSum(void* buf, size_t count, Wire wire) {
  char* p = static_cast<char*>(buf);
  for (size_t done = 0; done < count;) {
    const size_t n = std::min(kMaxCount, count - done);
    SYMNET_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, p + done * WireSize(wire), static_cast<int>(n),
                                  MpiType(wire), MPI_SUM, MPI_COMM_WORLD));
    done += n;
  }
}

void Broadcast(void* buf, size_t bytes, int root) {
  char* p = static_cast<char*>(buf);
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kMaxCount, bytes - done);
    SYMNET_MPI_CALL(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, MPI_COMM_WORLD));
    done += n;
  }
}

void AllGather(const void* in, size_t bytes, void* out) {
  SYMNET_CHECK(bytes <= kMaxCount)
      << "all-gather: " << bytes << " bytes per rank is more than one message takes";
  SYMNET_MPI_CALL(MPI_Allgather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes),
                                MPI_BYTE, MPI_COMM_WORLD));
}

void Barrier() { SYMNET_MPI_CALL(MPI_Barrier(MPI_COMM_WORLD)); }

void Finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

}  // namespace transport
}  // namespace dist
}  // namespace symnet
