/*!
 * \brief GPU arrays summed over the ranks of a distributed job with NCCL (wire.h's
 *  NcclSumOverRanks, run on the communication thread): one communicator per process and device,
 *  made on first use with ncclCommInitRank from an id that rank 0 makes and MPI broadcasts. An
 *  array of the wire's dtype is summed in place; float16 and bfloat16 are summed in a float32
 *  device copy, integers and bool in int64, as on the CPU path. The sums are enqueued on the
 *  device's stream, after the kernels that wrote the arrays and before those that read them, so
 *  nothing waits on the host.
 */
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "src/device/cuda_common.h"
#include "src/device/device_ops.h"
#include "symnet/collectives.h"
#include "symnet/runtime.h"
#include "wire.h"

#ifdef SYMNET_HAVE_NCCL
#include "src/ndarray/nccl_call.h"
#endif

namespace symnet {
namespace dist {

#ifdef SYMNET_HAVE_NCCL
namespace {

/*! \brief What each rank tells the others before the communicator is made. */
struct Seat {
  char host[64];
  int device;
};

/*!
 * \brief This process's communicator for GPU `dev`. NCCL cannot seat two ranks on one GPU (and
 *  would fail with a terse "duplicate GPU"): the ranks first exchange (host, device) and every
 *  rank names the clash.
 */
ncclComm_t Comm(int dev) {
  static std::map<int, ncclComm_t> comms;  // touched by the communication thread only
  auto it = comms.find(dev);
  if (it != comms.end()) return it->second;
  const int rank = Rank(), size = Size();
  Seat mine{};
  gethostname(mine.host, sizeof(mine.host) - 1);
  mine.device = dev;
  std::vector<Seat> seats(static_cast<size_t>(size));
  transport::AllGather(&mine, sizeof(mine), seats.data());
  for (int r = 0; r < size; ++r)
    for (int q = 0; q < r; ++q)
      SYMNET_CHECK(std::strcmp(seats[r].host, seats[q].host) != 0 ||
                   seats[r].device != seats[q].device)
          << "dist (NCCL): ranks " << q << " and " << r << " both use gpu(" << seats[r].device
          << ") on " << seats[r].host
          << "; NCCL needs one GPU per rank: start as many ranks per machine as it has GPUs and "
             "put rank r on gpu(local rank)";
  ncclUniqueId id;
  if (rank == 0) SYMNET_NCCL_CALL(ncclGetUniqueId(&id));
  transport::Broadcast(&id, sizeof(id), 0);
  cuda::SetDevice(dev);
  ncclComm_t comm;
  SYMNET_NCCL_CALL(ncclCommInitRank(&comm, size, id, rank));
  return comms[dev] = comm;
}

}  // namespace

bool NcclBuilt() { return true; }

void NcclSumOverRanks(const std::vector<const NDArray*>& arrays, transport::Wire wire) {
  if (arrays.empty()) return;
  const int dev = arrays[0]->device().id;
  for (const NDArray* a : arrays)
    SYMNET_CHECK(a->device() == Device::GPU(dev))
        << "dist: the GPU arrays of one all-reduce must share one device (gpu(" << dev << ") and "
        << a->device() << ")";
  ncclComm_t comm = Comm(dev);
  cuda::SetDevice(dev);
  cudaStream_t stream = cuda::Resources(dev).stream;
  const DType wt = WireDType(wire);
  // arrays not of the wire's dtype are summed in a device copy of it (float16 in float32...)
  std::vector<std::pair<const NDArray*, void*>> copies;
  for (const NDArray* a : arrays) {
    if (a->dtype() == wt || a->Size() == 0) continue;
    void* tmp = cuda::DeviceAlloc(static_cast<size_t>(a->Size()) * DTypeSize(wt), dev);
    cuda::Convert(a->dptr(), a->dtype(), tmp, wt, static_cast<size_t>(a->Size()), dev);
    copies.emplace_back(a, tmp);
  }
  SYMNET_NCCL_CALL(ncclGroupStart());
  try {
    size_t c = 0;
    for (const NDArray* a : arrays) {
      if (a->Size() == 0) continue;
      void* buf = a->dtype() == wt ? a->dptr() : copies[c++].second;
      SYMNET_NCCL_CALL(ncclAllReduce(buf, buf, static_cast<size_t>(a->Size()), cuda::NcclType(wt),
                                     ncclSum, comm, stream));
    }
  } catch (...) {
    ncclGroupEnd();  // never leave a group open: the next all-reduce would join it
    throw;
  }
  SYMNET_NCCL_CALL(ncclGroupEnd());
  for (const auto& [a, tmp] : copies) {
    cuda::Convert(tmp, wt, a->dptr(), a->dtype(), static_cast<size_t>(a->Size()), dev);
    // stream order makes the block safe to reuse at once (device_ops.h)
    cuda::DeviceFree(tmp, static_cast<size_t>(a->Size()) * DTypeSize(wt), dev);
  }
}

#else

bool NcclBuilt() { return false; }

void NcclSumOverRanks(const std::vector<const NDArray*>&, transport::Wire) {
  SYMNET_THROW << "dist: this build found no NCCL; GPU arrays go through host memory and MPI";
}

#endif

}  // namespace dist
}  // namespace symnet
