/*! \brief Fill and dtype conversion on a GPU: the element loops of NDArray::Fill and AsType. */
#include <type_traits>

#include "cuda_common.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace cuda {

namespace {

template <typename S, typename D>
struct ConvertKernel {
  SYMNET_XINLINE static void Map(int64_t i, D* dst, const S* src) {
    // the same value rules as ConvertElements on the CPU
    const AccType<S> v = static_cast<AccType<S>>(src[i]);
    if constexpr (std::is_same<D, bool>::value) {
      dst[i] = v != AccType<S>(0);
    } else if constexpr (std::is_same<D, half_t>::value || std::is_same<D, bf16_t>::value) {
      dst[i] = D(static_cast<float>(v));
    } else {
      dst[i] = static_cast<D>(v);
    }
  }
};

template <typename S, typename D>
struct ConvertAddKernel {
  SYMNET_XINLINE static void Map(int64_t i, D* dst, const S* src) {
    dst[i] = D(static_cast<AccType<D>>(dst[i]) +
               static_cast<AccType<D>>(static_cast<AccType<S>>(src[i])));
  }
};

template <typename T>
struct AddScalarKernel {
  SYMNET_XINLINE static void Map(int64_t i, T* dst, float v) {
    dst[i] = T(static_cast<float>(dst[i]) + v);
  }
};

template <typename T>
struct FillKernel {
  SYMNET_XINLINE static void Map(int64_t i, T* dst, T v) { dst[i] = v; }
};

}  // namespace

void Fill(void* ptr, DType t, size_t n, double value, int dev) {
  SetDevice(dev);
  SYMNET_TYPE_SWITCH(t, T, {
    T v;
    if constexpr (std::is_same<T, half_t>::value || std::is_same<T, bf16_t>::value) {
      v = T(static_cast<float>(value));
    } else {
      v = static_cast<T>(value);
    }
    ops::Kernel<FillKernel<T>, ops::gpu>::Launch(static_cast<int64_t>(n), static_cast<T*>(ptr), v);
  });
  CheckLaunch("fill");
}

void AddScalar(void* ptr, DType t, size_t n, double value, int dev) {
  SetDevice(dev);
  SYMNET_FLOAT_TYPE_SWITCH(t, T, {
    ops::Kernel<AddScalarKernel<T>, ops::gpu>::Launch(static_cast<int64_t>(n), static_cast<T*>(ptr),
                                                      static_cast<float>(value));
  });
  CheckLaunch("add");
}

void Convert(const void* src, DType src_type, void* dst, DType dst_type, size_t n, int dev) {
  if (src_type == dst_type) {
    CopyBytes(dst, Device::GPU(dev), src, Device::GPU(dev), n * DTypeSize(src_type));
    return;
  }
  SetDevice(dev);
  SYMNET_TYPE_SWITCH(src_type, S, {
    SYMNET_TYPE_SWITCH(dst_type, D, {
      ops::Kernel<ConvertKernel<S, D>, ops::gpu>::Launch(
          static_cast<int64_t>(n), static_cast<D*>(dst), static_cast<const S*>(src));
    });
  });
  CheckLaunch("dtype conversion");
}

void ConvertAdd(const void* src, DType src_type, void* dst, DType dst_type, size_t n, int dev) {
  SetDevice(dev);
  SYMNET_FLOAT_TYPE_SWITCH(src_type, S, {
    SYMNET_FLOAT_TYPE_SWITCH(dst_type, D, {
      ops::Kernel<ConvertAddKernel<S, D>, ops::gpu>::Launch(
          static_cast<int64_t>(n), static_cast<D*>(dst), static_cast<const S*>(src));
    });
  });
  CheckLaunch("accumulation");
}

}  // namespace cuda
}  // namespace symnet
