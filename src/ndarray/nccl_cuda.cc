/*! \brief All-reduce across GPUs with NCCL: one communicator set per device list, cached. */
#include <map>
#include <mutex>
#include <vector>

#include "nccl_allreduce.h"
#include "src/device/cuda_common.h"

#ifdef SYMNET_HAVE_NCCL
#include "nccl_call.h"
#endif

namespace symnet {
namespace cuda {

#ifdef SYMNET_HAVE_NCCL
namespace {

/*! \brief Communicators for a list of devices (rank i = devices[i]); kept for the process. */
const std::vector<ncclComm_t>& Comms(const std::vector<int>& devices) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::vector<int>, std::vector<ncclComm_t>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(devices);
  if (it != cache->end()) return it->second;
  std::vector<ncclComm_t> comms(devices.size());
  SYMNET_NCCL_CALL(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  return (*cache)[devices] = comms;
}

}  // namespace

void NcclAllReduceSum(const std::vector<std::vector<NDArray>>& per_device) {
  std::vector<int> devices;
  for (const auto& arrays : per_device) {
    const int id = arrays.empty() ? 0 : arrays[0].device().id;
    for (const auto& a : arrays)
      SYMNET_CHECK(a.device().id == id)
          << "all-reduce: the arrays of one rank must share one device";
    for (int d : devices) SYMNET_CHECK(d != id) << "all-reduce: gpu(" << id << ") appears twice";
    devices.push_back(id);
    Resources(id);  // streams exist before the group starts
  }
  for (const auto& a : per_device[0])
    NcclType(a.dtype());  // every dtype is checked before the group opens
  const std::vector<ncclComm_t>& comms = Comms(devices);
  SYMNET_NCCL_CALL(ncclGroupStart());
  try {
    for (size_t r = 0; r < per_device.size(); ++r) {
      cudaStream_t s = Resources(devices[r]).stream;
      for (const auto& a : per_device[r])
        SYMNET_NCCL_CALL(ncclAllReduce(a.dptr(), a.dptr(), static_cast<size_t>(a.Size()),
                                       NcclType(a.dtype()), ncclSum, comms[r], s));
    }
  } catch (...) {
    ncclGroupEnd();  // never leave a group open: the next all-reduce would join it
    throw;
  }
  SYMNET_NCCL_CALL(ncclGroupEnd());
}

#else

void NcclAllReduceSum(const std::vector<std::vector<NDArray>>&) {
  SYMNET_THROW << "all-reduce across GPUs needs NCCL, which this build did not find";
}

#endif

}  // namespace cuda
}  // namespace symnet
