/*! \brief Raw memory blocks: one owner per allocation, shared by every view of it. */
#ifndef SYMNET_STORAGE_H_
#define SYMNET_STORAGE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "symnet/device.h"

namespace symnet {

/*! \brief Alignment of every CPU allocation: one cache line, enough for AVX-512 loads. */
constexpr size_t kStorageAlign = 64;

/*!
 * \brief The write version of some memory's contents: a stamp that changes whenever the contents
 *  may have changed, so a cache of data derived from them (a oneDNN kernel's reordered weights)
 *  knows whether it is current. Stamps come from one process-wide counter, so a stamp is never
 *  reused: (this object, stamp) names one state of the contents even after memory is freed and
 *  reallocated. Stamp 0 means "untracked": writes may happen where no bump can see them (a raw
 *  pointer handed to foreign code), and nothing may be cached for these contents.
 */
class ContentVersion {
 public:
  ContentVersion() : stamp_(NextStamp()) {}
  ContentVersion(const ContentVersion&) = delete;
  ContentVersion& operator=(const ContentVersion&) = delete;

  /*! \brief The current stamp; 0 when untracked. */
  uint64_t stamp() const {
    return untracked_.load(std::memory_order_acquire) ? 0 : stamp_.load(std::memory_order_acquire);
  }
  /*! \brief The contents changed (or are about to): caches of them are stale from now on. Const
   *  because the version is bookkeeping beside the memory, bumped wherever the memory is written.
   */
  void Bump() const { stamp_.store(NextStamp(), std::memory_order_release); }
  /*! \brief For good: writes can no longer be seen (stamp() is 0 from now on). */
  void Untrack() const { untracked_.store(true, std::memory_order_release); }

 private:
  static uint64_t NextStamp();
  mutable std::atomic<uint64_t> stamp_;
  mutable std::atomic<bool> untracked_{false};
};

/*! \brief An allocation. Freed when the last shared_ptr to it goes away. */
class StorageChunk {
 public:
  StorageChunk(void* ptr, size_t bytes, Device dev, bool owned = true)
      : ptr_(ptr), bytes_(bytes), dev_(dev), owned_(owned) {}
  ~StorageChunk();
  StorageChunk(const StorageChunk&) = delete;
  StorageChunk& operator=(const StorageChunk&) = delete;

  void* ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  Device device() const { return dev_; }
  /*! \brief The write version of the whole chunk (every view of it shares it). */
  const ContentVersion& version() const { return version_; }

 private:
  void* ptr_;
  size_t bytes_;
  Device dev_;
  bool owned_;  // false: memory someone else frees (BorrowStorage)
  ContentVersion version_;
};

using StoragePtr = std::shared_ptr<StorageChunk>;

/*! \brief Allocates `bytes` on `dev` (aligned to kStorageAlign); throws a clear error on failure.
 */
StoragePtr AllocStorage(size_t bytes, Device dev);

/*!
 * \brief A chunk over memory that stays owned elsewhere (an executor's arena seen by a Custom
 *  op's Python code): never freed through the chunk, and valid only as long as the owner keeps it.
 */
StoragePtr BorrowStorage(void* ptr, size_t bytes, Device dev);

/*! \brief Total bytes currently allocated through AllocStorage on the CPU (for reports/tests). */
size_t CPUBytesInUse();

}  // namespace symnet

#endif  // SYMNET_STORAGE_H_
