/*! \brief Element types (with MXNet's numeric type flags), 16-bit float types and type switches. */
#ifndef SYMNET_DTYPE_H_
#define SYMNET_DTYPE_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "symnet/base.h"

#if defined(__F16C__) && !defined(__CUDACC__)
#include <immintrin.h>
#define SYMNET_HAVE_F16C 1
#endif

namespace symnet {

/*! \brief Element type. The values are MXNet's type flags, as stored in .params files and JSON. */
enum class DType : int {
  kUnknown = -1,
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBool = 7,
  kBFloat16 = 12,
};

namespace detail {
/*! \brief float -> IEEE half bits, round to nearest even, with overflow to inf and subnormals. */
SYMNET_XINLINE uint16_t FloatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan: keep nan quiet and non-zero
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {                                               // half subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of min subnormal
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exp;  // 14..24
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

/*! \brief IEEE half bits -> float (exact). */
SYMNET_XINLINE float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1fu) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {  // subnormal: normalise
    uint32_t e = 113u;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    x = sign | (e << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/*! \brief float -> bfloat16 bits, round to nearest even; nan stays a quiet nan. */
SYMNET_XINLINE uint16_t FloatToBF16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

SYMNET_XINLINE float BF16BitsToFloat(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
}  // namespace detail

/*! \brief IEEE 754 binary16 storage type; arithmetic happens in float. */
struct half_t {
  uint16_t bits = 0;
  half_t() = default;
  SYMNET_XINLINE half_t(float f) {  // NOLINT(runtime/explicit): behaves like a number
#ifdef SYMNET_HAVE_F16C
    bits = _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
#else
    bits = detail::FloatToHalfBits(f);
#endif
  }
  SYMNET_XINLINE explicit half_t(double d) : half_t(static_cast<float>(d)) {}
  SYMNET_XINLINE operator float() const {  // NOLINT(runtime/explicit)
#ifdef SYMNET_HAVE_F16C
    return _cvtsh_ss(bits);
#else
    return detail::HalfBitsToFloat(bits);
#endif
  }
  static SYMNET_XINLINE half_t FromBits(uint16_t b) {
    half_t h;
    h.bits = b;
    return h;
  }
};

/*! \brief bfloat16 storage type (the upper half of a float32); arithmetic happens in float. */
struct bf16_t {
  uint16_t bits = 0;
  bf16_t() = default;
  SYMNET_XINLINE bf16_t(float f) : bits(detail::FloatToBF16Bits(f)) {}  // NOLINT
  SYMNET_XINLINE explicit bf16_t(double d) : bf16_t(static_cast<float>(d)) {}
  SYMNET_XINLINE operator float() const { return detail::BF16BitsToFloat(bits); }  // NOLINT
  static SYMNET_XINLINE bf16_t FromBits(uint16_t b) {
    bf16_t h;
    h.bits = b;
    return h;
  }
};

/*! \brief Type in which element-wise math on T is done: float for the 16-bit types. */
template <typename T>
struct AccTypeOf {
  using type = T;
};
template <>
struct AccTypeOf<half_t> {
  using type = float;
};
template <>
struct AccTypeOf<bf16_t> {
  using type = float;
};
template <typename T>
using AccType = typename AccTypeOf<T>::type;

/*! \brief Compile-time DType of a C++ type. */
template <typename T>
struct DTypeOf;
#define SYMNET_DTYPE_OF(T, D)         \
  template <>                         \
  struct DTypeOf<T> {                 \
    static constexpr DType value = D; \
  };
SYMNET_DTYPE_OF(float, DType::kFloat32)
SYMNET_DTYPE_OF(double, DType::kFloat64)
SYMNET_DTYPE_OF(half_t, DType::kFloat16)
SYMNET_DTYPE_OF(bf16_t, DType::kBFloat16)
SYMNET_DTYPE_OF(uint8_t, DType::kUint8)
SYMNET_DTYPE_OF(int8_t, DType::kInt8)
SYMNET_DTYPE_OF(int32_t, DType::kInt32)
SYMNET_DTYPE_OF(int64_t, DType::kInt64)
SYMNET_DTYPE_OF(bool, DType::kBool)
#undef SYMNET_DTYPE_OF

/*! \brief Bytes per element; 0 for kUnknown. */
size_t DTypeSize(DType t);
/*! \brief Whether this CPU has the F16C half-precision conversions (CPUID, asked at run time;
 *  clang has no __builtin_cpu_supports("f16c")). */
bool CpuHasF16C();
/*! \brief numpy-style name: "float32", "bfloat16", ... */
const char* DTypeName(DType t);
/*! \brief Parses a numpy-style name (also accepts MXNet's flag number as text); throws on others.
 */
DType DTypeFromName(const std::string& name);
/*! \brief Whether `v` is one of the flags above. */
bool IsValidDTypeFlag(int v);
inline bool IsFloatType(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}
/*!
 * \brief Rank of the float dtypes by width for mixed precision (widest/narrowest casts):
 *  float64 > float32 > float16 > bfloat16 (both 16 bits; float16 wins); 0 for other dtypes.
 */
inline int FloatWidthRank(DType t) {
  switch (t) {
    case DType::kFloat64:
      return 4;
    case DType::kFloat32:
      return 3;
    case DType::kFloat16:
      return 2;
    case DType::kBFloat16:
      return 1;
    default:
      return 0;
  }
}
/*! \brief Converts n elements between any two dtypes (value conversion, rounding to nearest). */
void ConvertElements(const void* src, DType src_type, void* dst, DType dst_type, size_t n);

std::ostream& operator<<(std::ostream& os, DType t);

}  // namespace symnet

#define SYMNET_TYPE_CASE_(flag, T, NAME, ...) \
  case flag: {                                \
    using NAME = T;                           \
    { __VA_ARGS__ }                           \
  } break;

/*! \brief Runs the body with NAME bound to the C++ type of a floating dtype. */
#define SYMNET_FLOAT_TYPE_SWITCH(dtype, NAME, ...)                                           \
  switch (dtype) {                                                                           \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat32, float, NAME, __VA_ARGS__)                   \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat64, double, NAME, __VA_ARGS__)                  \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat16, ::symnet::half_t, NAME, __VA_ARGS__)        \
    SYMNET_TYPE_CASE_(::symnet::DType::kBFloat16, ::symnet::bf16_t, NAME, __VA_ARGS__)       \
    default:                                                                                 \
      SYMNET_THROW << "this operation supports float32, float64, float16 and bfloat16, not " \
                   << (dtype);                                                               \
  }

/*! \brief Runs the body with NAME bound to the C++ type of float32 or float64. */
#define SYMNET_REAL_TYPE_SWITCH(dtype, NAME, ...)                                     \
  switch (dtype) {                                                                    \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat32, float, NAME, __VA_ARGS__)            \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat64, double, NAME, __VA_ARGS__)           \
    default:                                                                          \
      SYMNET_THROW << "this operation supports float32 and float64, not " << (dtype); \
  }

/*! \brief Runs the body with NAME bound to the C++ type of any dtype. */
#define SYMNET_TYPE_SWITCH(dtype, NAME, ...)                                           \
  switch (dtype) {                                                                     \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat32, float, NAME, __VA_ARGS__)             \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat64, double, NAME, __VA_ARGS__)            \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat16, ::symnet::half_t, NAME, __VA_ARGS__)  \
    SYMNET_TYPE_CASE_(::symnet::DType::kBFloat16, ::symnet::bf16_t, NAME, __VA_ARGS__) \
    SYMNET_TYPE_CASE_(::symnet::DType::kUint8, uint8_t, NAME, __VA_ARGS__)             \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt8, int8_t, NAME, __VA_ARGS__)               \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt32, int32_t, NAME, __VA_ARGS__)             \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt64, int64_t, NAME, __VA_ARGS__)             \
    SYMNET_TYPE_CASE_(::symnet::DType::kBool, bool, NAME, __VA_ARGS__)                 \
    default:                                                                           \
      SYMNET_THROW << "unknown dtype " << static_cast<int>(dtype);                     \
  }

#endif  // SYMNET_DTYPE_H_
