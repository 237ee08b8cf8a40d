/*! \brief Device text form. */
#include "symnet/device.h"

#include <ostream>

namespace symnet {

std::string Device::ToString() const {
  const char* name = type == kGPU         ? "gpu"
                     : type == kCPUPinned ? "cpu_pinned"
                     : type == kCPUShared ? "cpu_shared"
                                          : "cpu";
  return std::string(name) + "(" + std::to_string(id) + ")";
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.ToString(); }

}  // namespace symnet
