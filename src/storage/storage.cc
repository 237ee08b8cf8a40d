/*! \brief Allocation: aligned CPU memory, or a block of the GPU pool (src/cuda). */
#include "symnet/storage.h"

#include <atomic>
#include <cstdlib>

#include "src/device/device_ops.h"
#include "symnet/base.h"
#include "symnet/profiler.h"

namespace symnet {

namespace {
std::atomic<size_t> g_cpu_bytes{0};

/*! \brief The profiler's memory counter of a device, after `delta` bytes changed hands. */
void CountBytes(Device dev, int64_t delta) {
  static std::atomic<int64_t> gpu_bytes[64];
  if (!profiler::Recording(profiler::Category::kMemory)) {
    if (dev.type == Device::kGPU && dev.id >= 0 && dev.id < 64) gpu_bytes[dev.id] += delta;
    return;
  }
  double now;
  if (dev.type == Device::kGPU) {
    if (dev.id < 0 || dev.id >= 64) return;
    now = static_cast<double>(gpu_bytes[dev.id] += delta);
  } else {
    now = static_cast<double>(g_cpu_bytes.load());
  }
  profiler::RecordCounter(profiler::Category::kMemory, "bytes in use", dev.ToString(), now);
}
}  // namespace

uint64_t ContentVersion::NextStamp() {
  static std::atomic<uint64_t> next{1};  // 0 is "untracked"
  return next.fetch_add(1, std::memory_order_relaxed);
}

StorageChunk::~StorageChunk() {
  if (!owned_) return;
  if (ptr_ && dev_.type == Device::kGPU) {
    cuda::DeviceFree(ptr_, bytes_, dev_.id);
  } else if (ptr_) {
    std::free(ptr_);
    g_cpu_bytes -= bytes_;
  }
  if (ptr_) CountBytes(dev_, -static_cast<int64_t>(bytes_));
}

StoragePtr BorrowStorage(void* ptr, size_t bytes, Device dev) {
  return std::make_shared<StorageChunk>(ptr, bytes, dev, false);
}

StoragePtr AllocStorage(size_t bytes, Device dev) {
  if (dev.type == Device::kGPU) {
    auto chunk = std::make_shared<StorageChunk>(cuda::DeviceAlloc(bytes, dev.id), bytes, dev);
    CountBytes(dev, static_cast<int64_t>(bytes));
    return chunk;
  }
  // aligned_alloc needs a size that is a multiple of the alignment; 0 bytes still gets a block
  size_t rounded = (bytes + kStorageAlign - 1) / kStorageAlign * kStorageAlign;
  if (rounded == 0) rounded = kStorageAlign;
  void* p = std::aligned_alloc(kStorageAlign, rounded);
  SYMNET_CHECK(p != nullptr) << "out of memory: failed to allocate " << bytes << " bytes on "
                             << dev.ToString();
  g_cpu_bytes += bytes;
  CountBytes(dev, static_cast<int64_t>(bytes));
  return std::make_shared<StorageChunk>(p, bytes, dev);
}

size_t CPUBytesInUse() { return g_cpu_bytes.load(); }

}  // namespace symnet
