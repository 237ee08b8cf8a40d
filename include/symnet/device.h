/*! \brief Device: where an array lives or an executor runs (MXNet's dev_type codes). */
#ifndef SYMNET_DEVICE_H_
#define SYMNET_DEVICE_H_

#include <iosfwd>
#include <string>

namespace symnet {

struct Device {
  /*! \brief Values are MXNet's dev_type codes, as stored in .params files. */
  enum Type : int { kCPU = 1, kGPU = 2, kCPUPinned = 3, kCPUShared = 5 };
  Type type = kCPU;
  int id = 0;

  static Device CPU(int id = 0) { return Device{kCPU, id}; }
  static Device GPU(int id = 0) { return Device{kGPU, id}; }
  /*! \brief Host memory of any kind (cpu, cpu_pinned, cpu_shared): the CPU kernels run on it. */
  bool is_host() const { return type != kGPU; }
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  /*! \brief "cpu(0)", "gpu(1)", "cpu_pinned(0)", "cpu_shared(0)". */
  std::string ToString() const;
};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace symnet

#endif  // SYMNET_DEVICE_H_
