/*! \brief NDArray creation, copies, views and conversions, on the CPU or a GPU. */
#include "symnet/ndarray.h"

#include <cstring>
#include <vector>

#include "src/device/device_ops.h"

namespace symnet {

NDArray::NDArray(const Shape& shape, Device dev, DType dtype) : shape_(shape), dtype_(dtype) {
  SYMNET_CHECK(shape.is_known()) << "cannot create an array of unknown shape " << shape;
  for (auto d : shape) SYMNET_CHECK_GE(d, 0) << "negative dimension in shape " << shape;
  SYMNET_CHECK(DTypeSize(dtype) > 0) << "cannot create an array of dtype " << dtype;
  chunk_ = AllocStorage(Bytes(), dev);
}

NDArray::NDArray(StoragePtr chunk, size_t offset, const Shape& shape, DType dtype)
    : chunk_(std::move(chunk)), offset_(offset), shape_(shape), dtype_(dtype) {
  SYMNET_CHECK(offset_ + Bytes() <= chunk_->bytes())
      << "view of " << Bytes() << " bytes at offset " << offset_ << " exceeds a storage chunk of "
      << chunk_->bytes() << " bytes";
}

Device NDArray::device() const { return chunk_ ? chunk_->device() : Device::CPU(); }

void* NDArray::dptr() const {
  if (!chunk_) return nullptr;
  chunk_->version().Bump();
  return static_cast<char*>(chunk_->ptr()) + offset_;
}

const void* NDArray::read_ptr() const {
  return chunk_ ? static_cast<const char*>(chunk_->ptr()) + offset_ : nullptr;
}

NDArray NDArray::Zeros(const Shape& shape, Device dev, DType dtype) {
  NDArray a(shape, dev, dtype);
  if (dev.type == Device::kGPU) {
    cuda::Memset(a.dptr(), 0, a.Bytes(), dev.id);
  } else {
    std::memset(a.dptr(), 0, a.Bytes());
  }
  return a;
}

NDArray NDArray::Full(const Shape& shape, double value, Device dev, DType dtype) {
  NDArray a(shape, dev, dtype);
  a.Fill(value);
  return a;
}

NDArray NDArray::FromBuffer(const void* data, const Shape& shape, DType src_dtype, DType dtype,
                            Device dev) {
  NDArray a(shape, dev, dtype);
  a.CopyFromBuffer(data, src_dtype);
  return a;
}

NDArray NDArray::Copy() const { return AsType(dtype_); }

NDArray NDArray::AsType(DType dtype) const {
  SYMNET_CHECK(!is_none()) << "cannot copy a none array";
  NDArray out(shape_, device(), dtype);
  out.CopyFrom(*this);
  return out;
}

NDArray NDArray::Reshape(const Shape& shape) const {
  Shape s = shape;
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < s.ndim(); ++i) {
    if (s[i] == -1) {
      SYMNET_CHECK(infer < 0) << "reshape to " << shape << ": at most one dimension may be -1";
      infer = i;
    } else {
      SYMNET_CHECK(s[i] >= 0) << "reshape to " << shape << ": dimension " << i << " is negative";
      known = Shape::MulElements(known, s[i], shape);
    }
  }
  if (infer >= 0) {
    SYMNET_CHECK(known > 0 && Size() % known == 0)
        << "cannot reshape array of shape " << shape_ << " to " << shape;
    s[infer] = Size() / known;
  }
  SYMNET_CHECK(s.is_known() && s.Size() == Size())
      << "cannot reshape array of shape " << shape_ << " (size " << Size() << ") to " << shape;
  return NDArray(chunk_, offset_, s, dtype_);
}

NDArray NDArray::Slice(int64_t begin, int64_t end) const {
  SYMNET_CHECK(shape_.ndim() >= 1) << "cannot slice a 0-d array";
  SYMNET_CHECK(0 <= begin && begin <= end && end <= shape_[0])
      << "slice [" << begin << ", " << end << ") is out of range for shape " << shape_;
  Shape s = shape_;
  s[0] = end - begin;
  const size_t row = static_cast<size_t>(shape_.ProdRange(1, shape_.ndim())) * DTypeSize(dtype_);
  return NDArray(chunk_, offset_ + row * begin, s, dtype_);
}

NDArray NDArray::At(int64_t i) const {
  NDArray row = Slice(i, i + 1);
  Shape s(shape_.begin() + 1, shape_.end());
  if (shape_.ndim() == 1) s = Shape::Scalar();
  return NDArray(row.chunk_, row.offset_, s, dtype_);
}

void NDArray::Fill(double value) const {
  const size_t n = static_cast<size_t>(Size());
  if (device().type == Device::kGPU) {
    cuda::Fill(dptr(), dtype_, n, value, device().id);
    return;
  }
  SYMNET_TYPE_SWITCH(dtype_, T, {
    T* p = static_cast<T*>(dptr());
    T v;
    if constexpr (std::is_same<T, half_t>::value || std::is_same<T, bf16_t>::value) {
      v = T(static_cast<float>(value));
    } else {
      v = static_cast<T>(value);
    }
    for (size_t i = 0; i < n; ++i) p[i] = v;
  });
  MarkWritten();  // again after the write, see CopyFrom
}

void NDArray::CopyFrom(const NDArray& src) const {
  SYMNET_CHECK(!src.is_none() && !is_none()) << "copy from or to a none array";
  SYMNET_CHECK_EQ(src.Size(), Size())
      << "cannot copy an array of shape " << src.shape() << " into one of shape " << shape_;
  if (src.read_ptr() == read_ptr() && src.dtype() == dtype_) return;
  const Device sd = src.device(), dd = device();
  const size_t n = static_cast<size_t>(Size());
  if (sd.type != Device::kGPU && dd.type != Device::kGPU) {
    ConvertElements(src.read_ptr(), src.dtype(), dptr(), dtype_, n);
  } else if (src.dtype() == dtype_) {
    cuda::CopyBytes(dptr(), dd, src.read_ptr(), sd, Bytes());
  } else if (sd == dd) {
    cuda::Convert(src.read_ptr(), src.dtype(), dptr(), dtype_, n, dd.id);
  } else {  // convert where the source is, then copy across
    CopyFrom(src.AsType(dtype_));
  }
  // dptr() bumped the write version before the write; bumping once more after it means a reader
  // that raced with the copy cannot have cached half-written contents under the final stamp
  MarkWritten();
}

void NDArray::CopyFromBuffer(const void* data, DType src_dtype) const {
  const size_t n = static_cast<size_t>(Size());
  if (device().type != Device::kGPU) {
    ConvertElements(data, src_dtype, dptr(), dtype_, n);
  } else if (src_dtype == dtype_) {
    cuda::CopyBytes(dptr(), device(), data, Device::CPU(), Bytes());
  } else {
    std::vector<char> host(Bytes());
    ConvertElements(data, src_dtype, host.data(), dtype_, n);
    cuda::CopyBytes(dptr(), device(), host.data(), Device::CPU(), Bytes());
  }
  MarkWritten();  // again after the write, see CopyFrom
}

void NDArray::CopyToBuffer(void* data, DType dst_dtype) const {
  const size_t n = static_cast<size_t>(Size());
  if (device().type != Device::kGPU) {
    ConvertElements(read_ptr(), dtype_, data, dst_dtype, n);
  } else if (dst_dtype == dtype_) {
    cuda::CopyBytes(data, Device::CPU(), read_ptr(), device(), Bytes());
  } else {
    std::vector<char> host(Bytes());
    cuda::CopyBytes(host.data(), Device::CPU(), read_ptr(), device(), Bytes());
    ConvertElements(host.data(), dtype_, data, dst_dtype, n);
  }
}

void NDArray::WaitToRead() const {
  if (device().type == Device::kGPU) cuda::Synchronize(device().id);
}

double NDArray::GetDouble(int64_t i) const {
  SYMNET_CHECK(i >= 0 && i < Size()) << "index " << i << " out of range for shape " << shape_;
  double v = 0;
  const size_t size = DTypeSize(dtype_);
  char elem[16];
  const char* src = static_cast<const char*>(read_ptr()) + i * size;
  if (device().type == Device::kGPU) {
    cuda::CopyBytes(elem, Device::CPU(), src, device(), size);
  } else {
    std::memcpy(elem, src, size);
  }
  SYMNET_TYPE_SWITCH(dtype_, T, {
    v = static_cast<double>(static_cast<AccType<T>>(*reinterpret_cast<const T*>(elem)));
  });
  return v;
}

}  // namespace symnet
