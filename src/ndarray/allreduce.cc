/*! \brief AllReduceSum (collectives.h): NCCL for GPUs, a host sum for CPU "devices". */
#include "nccl_allreduce.h"
#include "src/device/device_ops.h"
#include "symnet/collectives.h"

namespace symnet {

void AllReduceSum(const std::vector<std::vector<NDArray>>& per_device) {
  if (per_device.size() < 2 || per_device[0].empty()) return;
  const size_t n = per_device[0].size();
  const bool gpu = !per_device[0].empty() && per_device[0][0].device().type == Device::kGPU;
  for (size_t d = 0; d < per_device.size(); ++d) {
    SYMNET_CHECK_EQ(per_device[d].size(), n)
        << "all-reduce: device " << d << " gives " << per_device[d].size()
        << " arrays, device 0 gives " << n;
    for (size_t k = 0; k < n; ++k) {
      const NDArray& a = per_device[d][k];
      SYMNET_CHECK(a.shape() == per_device[0][k].shape() && a.dtype() == per_device[0][k].dtype())
          << "all-reduce: array " << k << " has shape " << a.shape() << " and dtype " << a.dtype()
          << " on " << a.device() << " but " << per_device[0][k].shape() << " and "
          << per_device[0][k].dtype() << " on " << per_device[0][k].device();
      SYMNET_CHECK((a.device().type == Device::kGPU) == gpu)
          << "all-reduce: all arrays must be on GPUs or all on the CPU; array " << k << " is on "
          << a.device();
    }
  }
  if (gpu) {
    cuda::NcclAllReduceSum(per_device);
    return;
  }
  // CPU "devices" (cpu(0), cpu(1), ...): sum in double on the host
  for (size_t k = 0; k < n; ++k) {
    const size_t size = static_cast<size_t>(per_device[0][k].Size());
    std::vector<double> sum(size, 0.0), part(size);
    for (const auto& dev : per_device) {
      dev[k].CopyToBuffer(part.data(), DType::kFloat64);
      for (size_t i = 0; i < size; ++i) sum[i] += part[i];
    }
    for (const auto& dev : per_device) dev[k].CopyFromBuffer(sum.data(), DType::kFloat64);
  }
}

}  // namespace symnet
