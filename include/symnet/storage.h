/*! \brief Raw memory blocks: one owner per allocation, shared by every view of it. */
#ifndef SYMNET_STORAGE_H_
#define SYMNET_STORAGE_H_

#include <cstddef>
#include <memory>

#include "symnet/device.h"

namespace symnet {

/*! \brief Alignment of every CPU allocation: one cache line, enough for AVX-512 loads. */
constexpr size_t kStorageAlign = 64;

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

 private:
  void* ptr_;
  size_t bytes_;
  Device dev_;
  bool owned_;  // false: memory someone else frees (BorrowStorage)
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
