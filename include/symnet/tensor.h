/*! \brief TBlob: the non-owning (pointer, shape, dtype, device) view kernels work on. */
#ifndef SYMNET_TENSOR_H_
#define SYMNET_TENSOR_H_

#include "symnet/device.h"
#include "symnet/dtype.h"
#include "symnet/shape.h"
#include "symnet/storage.h"

namespace symnet {

/*!
 * \brief Physical order of a 3-D to 5-D activation's elements. The shape is always logical (N,
 *  C, H, W); kChannelsLast stores it as (N, H, W, C), kBlocked16 as oneDNN's nChw16c: (N, C/16,
 *  H, W, 16), channels in blocks of 16 (C a multiple of 16), and kBlocked8 as nChw8c. Which
 *  blocking is fastest depends on the CPU (16 for AVX-512, 8 for AVX2): the layout plan asks the
 *  ops (FLayoutPreference). Only ops that declare layout support (FLayoutSlots) ever see the
 *  non-default layouts; the executor converts at the boundaries of such regions.
 */
enum class Layout : uint8_t { kDefault = 0, kChannelsLast = 1, kBlocked16 = 2, kBlocked8 = 3 };

/*! \brief Channels per block of a blocked layout (8 or 16), 0 for the others. */
inline int ChannelBlock(Layout l) {
  return l == Layout::kBlocked16 ? 16 : (l == Layout::kBlocked8 ? 8 : 0);
}
/*! \brief Name of a layout for 4-D data ("NCHW", "NHWC", and oneDNN's "nChw8c", "nChw16c"). */
inline const char* LayoutTag(Layout l) {
  switch (l) {
    case Layout::kChannelsLast:
      return "NHWC";
    case Layout::kBlocked16:
      return "nChw16c";
    case Layout::kBlocked8:
      return "nChw8c";
    default:
      return "NCHW";
  }
}

/*! \brief A dense, contiguous view of memory owned elsewhere (row-major unless layout_ says). */
struct TBlob {
  void* dptr_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  Device dev_;
  Layout layout_ = Layout::kDefault;
  /*!
   * \brief The write version of the memory at dptr_ when it belongs to an NDArray (or is derived
   *  from one, see the executor's amp_cast), else null: scratch and arena memory, and any blob
   *  whose dptr_ was pointed elsewhere (reset it then). Kernels may cache data derived from the
   *  contents under (dptr_, version_->stamp()); null or stamp 0 means never cache.
   */
  const ContentVersion* version_ = nullptr;

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
    TBlob r(dptr_, s, dtype_, dev_);
    r.version_ = version_;  // the same memory
    return r;
  }
  bool channels_last() const { return layout_ == Layout::kChannelsLast; }
  /*! \brief Channels per block (8 or 16) of a blocked layout, 0 otherwise. */
  int channel_block() const { return ChannelBlock(layout_); }
  bool blocked() const { return channel_block() != 0; }
};

}  // namespace symnet

#endif  // SYMNET_TENSOR_H_
