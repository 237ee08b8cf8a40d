/*! \brief Aligned CPU allocation; GPU allocation is refused until the CUDA backend exists. */
#include <atomic>
#include <cstdlib>

#include "symnet/base.h"
#include "symnet/storage.h"

namespace symnet {

namespace {
std::atomic<size_t> g_cpu_bytes{0};
}

StorageChunk::~StorageChunk() {
  if (ptr_ && dev_.type != Device::kGPU) {
    std::free(ptr_);
    g_cpu_bytes -= bytes_;
  }
}

StoragePtr AllocStorage(size_t bytes, Device dev) {
  SYMNET_CHECK(dev.type != Device::kGPU)
      << "cannot allocate on " << dev.ToString()
      << ": GPU arrays are not supported by this build yet (CPU only)";
  // aligned_alloc needs a size that is a multiple of the alignment; 0 bytes still gets a block
  size_t rounded = (bytes + kStorageAlign - 1) / kStorageAlign * kStorageAlign;
  if (rounded == 0) rounded = kStorageAlign;
  void* p = std::aligned_alloc(kStorageAlign, rounded);
  SYMNET_CHECK(p != nullptr) << "out of memory: failed to allocate " << bytes << " bytes on "
                             << dev.ToString();
  g_cpu_bytes += bytes;
  return std::make_shared<StorageChunk>(p, bytes, dev);
}

size_t CPUBytesInUse() { return g_cpu_bytes.load(); }

}  // namespace symnet
