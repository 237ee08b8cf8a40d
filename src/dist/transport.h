/*!
 * \brief The message layer under symnet::dist: MPI (transport_mpi.cc) when symnet is built with
 *  it, otherwise a stub whose Init refuses a multi-rank job (transport_nompi.cc). Every function
 *  except Available and LaunchedSize runs on the communication thread only.
 */
#ifndef SYMNET_SRC_DIST_TRANSPORT_H_
#define SYMNET_SRC_DIST_TRANSPORT_H_

#include <algorithm>
#include <cstddef>
#include <cstdlib>

namespace symnet {
namespace dist {
namespace transport {

/*! \brief How summed elements travel. */
enum class Wire { kFloat32, kFloat64, kInt64 };

bool Available();
/*!
 * \brief The number of ranks the launcher started, from its environment: 1 when no launcher
 *  started this process, 0 when one did without saying how many (PMIx: MPI tells at Init).
 */
inline int LaunchedSize() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return std::max(1, std::atoi(v));
  }
  return std::getenv("PMIX_RANK") != nullptr ? 0 : 1;
}
struct Layout {
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
};
Layout Init();
void AllReduceSum(void* buf, size_t count, Wire wire);
void Broadcast(void* buf, size_t bytes, int root);
/*! \brief out holds size * bytes: rank r's `bytes` at r * bytes. */
void AllGather(const void* in, size_t bytes, void* out);
void Barrier();
void Finalize();

}  // namespace transport
}  // namespace dist
}  // namespace symnet

#endif  // SYMNET_SRC_DIST_TRANSPORT_H_
