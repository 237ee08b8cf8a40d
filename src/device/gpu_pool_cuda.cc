/*!
 * \brief The GPU memory pool: cudaMalloc'd blocks kept by size class and reused, so that a
 *  training step (whose arena, parameters and gradients are allocated once) never calls
 *  cudaMalloc, and imperative code does so rarely. Never managed memory.
 */
#include <map>
#include <mutex>
#include <vector>

#include "cuda_common.h"

namespace symnet {
namespace cuda {

namespace {

/*! \brief Small blocks round to 512 bytes; blocks over 1 MiB round to 2 MiB so that slightly
 *  different sizes share a class. */
size_t SizeClass(size_t bytes) {
  if (bytes == 0) return 512;
  if (bytes <= (size_t(1) << 20)) return (bytes + 511) / 512 * 512;
  const size_t mb2 = size_t(2) << 20;
  return (bytes + mb2 - 1) / mb2 * mb2;
}

struct Pool {
  std::mutex mutex;
  std::map<size_t, std::vector<void*>> free_blocks;
  MemoryStats stats;
};

Pool& PoolOf(int dev) {
  static std::mutex m;
  static auto* pools = new std::map<int, Pool>();  // never destroyed (see Resources)
  std::lock_guard<std::mutex> lock(m);
  return (*pools)[dev];
}

/*! \brief Frees every cached block of `pool` (the caller holds its mutex). */
void ReleaseCached(Pool& pool, int dev) {
  cudaStreamSynchronize(Resources(dev).stream);
  for (auto& kv : pool.free_blocks)
    for (void* p : kv.second) cudaFree(p);
  pool.free_blocks.clear();
  pool.stats.cached = 0;
}

}  // namespace

void* DeviceAlloc(size_t bytes, int dev) {
  Resources(dev);  // a clear error for a device that does not exist
  const size_t size = SizeClass(bytes);
  Pool& pool = PoolOf(dev);
  std::lock_guard<std::mutex> lock(pool.mutex);
  auto it = pool.free_blocks.find(size);
  void* p = nullptr;
  if (it != pool.free_blocks.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    pool.stats.cached -= size;
  } else {
    int prev = 0;
    cudaGetDevice(&prev);
    if (prev != dev) cudaSetDevice(dev);
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      ReleaseCached(pool, dev);
      e = cudaMalloc(&p, size);
    }
    if (prev != dev) cudaSetDevice(prev);
    if (e != cudaSuccess) {
      cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      SYMNET_THROW << "out of GPU memory on gpu(" << dev << "): failed to allocate " << bytes
                   << " bytes (" << cudaGetErrorString(e) << "); symnet holds " << pool.stats.in_use
                   << " bytes in arrays, the device has " << free_b << " of " << total_b
                   << " bytes free";
    }
  }
  pool.stats.in_use += size;
  if (pool.stats.in_use > pool.stats.peak) pool.stats.peak = pool.stats.in_use;
  return p;
}

void DeviceFree(void* ptr, size_t bytes, int dev) noexcept {
  if (ptr == nullptr) return;
  try {
    const size_t size = SizeClass(bytes);
    Pool& pool = PoolOf(dev);
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.free_blocks[size].push_back(ptr);
    pool.stats.in_use -= size;
    pool.stats.cached += size;
  } catch (...) {
    // (called from destructors) if even the free list cannot grow, the block is leaked
  }
}

MemoryStats GetMemoryStats(int dev) {
  Pool& pool = PoolOf(dev);
  std::lock_guard<std::mutex> lock(pool.mutex);
  return pool.stats;
}

}  // namespace cuda
}  // namespace symnet
