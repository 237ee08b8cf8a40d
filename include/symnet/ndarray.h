/*! \brief NDArray: an owning (shared) n-dimensional array for parameters, data and user I/O. */
#ifndef SYMNET_NDARRAY_H_
#define SYMNET_NDARRAY_H_

#include <memory>
#include <string>
#include <vector>

#include "symnet/storage.h"
#include "symnet/tensor.h"

namespace symnet {

struct Node;

/*!
 * \brief A dense array. Copies of an NDArray share memory (like numpy views); Copy() makes a
 *  new buffer. Views (Reshape, Slice) share the parent's storage.
 */
class NDArray {
 public:
  /*! \brief The "none" array: no storage. */
  NDArray() = default;
  /*! \brief Uninitialised array. */
  NDArray(const Shape& shape, Device dev = Device::CPU(), DType dtype = DType::kFloat32);
  /*! \brief View of `bytes` inside an existing storage chunk, starting at `offset` bytes. */
  NDArray(StoragePtr chunk, size_t offset, const Shape& shape, DType dtype);

  static NDArray Zeros(const Shape& shape, Device dev = Device::CPU(),
                       DType dtype = DType::kFloat32);
  static NDArray Full(const Shape& shape, double value, Device dev = Device::CPU(),
                      DType dtype = DType::kFloat32);
  static NDArray Ones(const Shape& shape, Device dev = Device::CPU(),
                      DType dtype = DType::kFloat32) {
    return Full(shape, 1.0, dev, dtype);
  }
  /*! \brief Copies `shape.Size()` elements of type `src_dtype` from host memory and converts. */
  static NDArray FromBuffer(const void* data, const Shape& shape, DType src_dtype, DType dtype,
                            Device dev = Device::CPU());

  bool is_none() const { return chunk_ == nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  int64_t Size() const { return shape_.Size(); }
  size_t Bytes() const { return static_cast<size_t>(Size()) * DTypeSize(dtype_); }
  /*!
   * \brief A writable pointer to the elements. Taking it bumps the storage's write version
   *  (MarkWritten), so caches of the contents (a convolution's reordered weights) are rebuilt on
   *  their next use: write through it before the array is next read by a kernel; a pointer kept
   *  and written after that needs MarkWritten() again. Readers use read_ptr().
   */
  void* dptr() const;
  /*! \brief A pointer for reading only: leaves the write version alone. */
  const void* read_ptr() const;
  /*! \brief A kernel's view for writing (bumps the write version, as dptr()). */
  TBlob data() const { return Blob(dptr()); }
  /*! \brief A kernel's view for reading only (the write version unchanged). */
  TBlob read_data() const { return Blob(const_cast<void*>(read_ptr())); }
  /*! \brief The contents changed (or will, before the next read): bumps the write version. */
  void MarkWritten() const {
    if (chunk_) chunk_->version().Bump();
  }
  /*! \brief The storage's write version (shared by all views of it); null for a none array. */
  const ContentVersion* version() const { return chunk_ ? &chunk_->version() : nullptr; }
  const StoragePtr& storage() const { return chunk_; }
  size_t byte_offset() const { return offset_; }

  /*! \brief A deep copy. */
  NDArray Copy() const;
  /*! \brief A new array with converted elements (a copy even when the dtype is the same). */
  NDArray AsType(DType dtype) const;
  /*! \brief View with a new shape of the same size; one dim may be -1 (inferred). */
  NDArray Reshape(const Shape& shape) const;
  /*! \brief View of rows [begin, end) along the first axis. */
  NDArray Slice(int64_t begin, int64_t end) const;
  /*! \brief View of row i along the first axis (drops the axis). */
  NDArray At(int64_t i) const;
  /*! \brief Sets every element to `value` (converted to the dtype). */
  void Fill(double value) const;
  /*! \brief Copies src's elements in (same number of elements; dtype converted). */
  void CopyFrom(const NDArray& src) const;
  /*! \brief Copies `Size()` elements of `src_dtype` from host memory, converting. */
  void CopyFromBuffer(const void* data, DType src_dtype) const;
  /*! \brief Copies the elements out to host memory as `dst_dtype`. */
  void CopyToBuffer(void* data, DType dst_dtype) const;
  /*! \brief Returns when every operation enqueued on the array's device has finished (GPU work
   *  runs asynchronously on the device's stream; CPU work is synchronous). */
  void WaitToRead() const;
  /*! \brief Element i (flat index) as double: for tests and small reads. */
  double GetDouble(int64_t i) const;

  /*!
   * \brief The autograd graph node that computed this array (an op recorded under
   *  autograd::Record, or the variable attach_grad made), and which of its outputs it is;
   *  null for arrays autograd does not track. Copies share it; Detach() drops it.
   */
  const std::shared_ptr<Node>& autograd_node() const { return ag_node_; }
  uint32_t autograd_index() const { return ag_index_; }
  void set_autograd_entry(std::shared_ptr<Node> node, uint32_t index) {
    ag_node_ = std::move(node);
    ag_index_ = index;
  }
  /*! \brief The same array (shared memory) without its autograd node. */
  NDArray Detach() const {
    NDArray d = *this;
    d.ag_node_.reset();
    d.ag_index_ = 0;
    return d;
  }

 private:
  StoragePtr chunk_;
  size_t offset_ = 0;
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  std::shared_ptr<Node> ag_node_;
  uint32_t ag_index_ = 0;

  TBlob Blob(void* p) const {
    TBlob b(p, shape_, dtype_, device());
    b.version_ = version();
    return b;
  }
};

}  // namespace symnet

#endif  // SYMNET_NDARRAY_H_
