/*! \brief TBlob: the non-owning (pointer, shape, dtype, device) view kernels work on. */
#ifndef SYMNET_TENSOR_H_
#define SYMNET_TENSOR_H_

#include "symnet/device.h"
#include "symnet/dtype.h"
#include "symnet/shape.h"

namespace symnet {

/*!
 * \brief How an op stores a result: skip it, overwrite, overwrite a buffer that is also one of
 *  its inputs (so a copy may be skipped), or accumulate into what is there (gradient summing).
 */
enum OpReqType { kNullOp = 0, kWriteTo = 1, kWriteInplace = 2, kAddTo = 3 };

/*!
 * \brief Physical order of a 4-D/5-D activation's elements. The shape is always logical (N, C,
 *  H, W); kChannelsLast stores it as (N, H, W, C) and kBlocked16 as oneDNN's nChw16c: (N, C/16,
 *  H, W, 16), channels in blocks of 16 (C must be a multiple of 16). Only ops that declare
 *  layout support (FLayoutSlots) ever see the non-default layouts; the executor converts at the
 *  boundaries of such regions.
 */
enum class Layout : uint8_t { kDefault = 0, kChannelsLast = 1, kBlocked16 = 2 };

/*! \brief A dense, contiguous view of memory owned elsewhere (row-major unless layout_ says). */
struct TBlob {
  void* dptr_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  Device dev_;
  Layout layout_ = Layout::kDefault;

  TBlob() = default;
  TBlob(void* p, Shape s, DType t, Device d = Device::CPU())
      : dptr_(p), shape_(std::move(s)), dtype_(t), dev_(d) {}

  template <typename T>
  T* dptr() const {
    return static_cast<T*>(dptr_);
  }
  int ndim() const { return shape_.ndim(); }
  int64_t Size() const { return shape_.Size(); }
  size_t Bytes() const { return static_cast<size_t>(Size()) * DTypeSize(dtype_); }
  /*! \brief Same memory seen with another (equal-size) shape. */
  TBlob Reshape(const Shape& s) const {
    SYMNET_CHECK_EQ(s.Size(), Size()) << "reshape " << shape_ << " to " << s;
    return TBlob(dptr_, s, dtype_, dev_);
  }
  bool channels_last() const { return layout_ == Layout::kChannelsLast; }
  bool blocked16() const { return layout_ == Layout::kBlocked16; }
};

}  // namespace symnet

#endif  // SYMNET_TENSOR_H_
