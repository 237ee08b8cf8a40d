/*! \brief Allocation: aligned CPU memory, or a block of the GPU pool (src/cuda). */
#include "symnet/storage.h"

#include <atomic>
#include <cstdlib>

#include "src/device/device_ops.h"
#include "symnet/base.h"

namespace symnet {

namespace {
std::atomic<size_t> g_cpu_bytes{0};
}

StorageChunk::~StorageChunk() {
  if (!owned_) return;
  if (ptr_ && dev_.type == Device::kGPU) {
    cuda::DeviceFree(ptr_, bytes_, dev_.id);
  } else if (ptr_) {
    std::free(ptr_);
    g_cpu_bytes -= bytes_;
  }
}

StoragePtr BorrowStorage(void* ptr, size_t bytes, Device dev) {
  return std::make_shared<StorageChunk>(ptr, bytes, dev, false);
}

StoragePtr AllocStorage(size_t bytes, Device dev) {
  if (dev.type == Device::kGPU)
    return std::make_shared<StorageChunk>(cuda::DeviceAlloc(bytes, dev.id), bytes, dev);
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
