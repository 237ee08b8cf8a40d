/*!
 * \brief Helpers for kernels that move elements without doing arithmetic on them (gathers,
 *  selects, fills). Such a kernel runs on the unsigned integer type of the element's size, so
 *  one instantiation serves every dtype of that size (float32 and int32 share uint32_t) and the
 *  .cu files stay small. Accumulating (kAddTo) needs the real type: that is done for the float
 *  dtypes, the only ones gradients have.
 */
#ifndef SYMNET_OPERATORS_TENSOR_BITS_UTIL_H_
#define SYMNET_OPERATORS_TENSOR_BITS_UTIL_H_

#include <cstring>
#include <type_traits>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

/*! \brief Runs the body with NAME bound to the unsigned integer type as wide as dtype. */
#define SYMNET_BITS_TYPE_SWITCH(dtype, NAME, ...)                                             \
  switch (::symnet::DTypeSize(dtype)) {                                                       \
    case 1: {                                                                                 \
      using NAME = uint8_t;                                                                   \
      { __VA_ARGS__ }                                                                         \
    } break;                                                                                  \
    case 2: {                                                                                 \
      using NAME = uint16_t;                                                                  \
      { __VA_ARGS__ }                                                                         \
    } break;                                                                                  \
    case 4: {                                                                                 \
      using NAME = uint32_t;                                                                  \
      { __VA_ARGS__ }                                                                         \
    } break;                                                                                  \
    case 8: {                                                                                 \
      using NAME = uint64_t;                                                                  \
      { __VA_ARGS__ }                                                                         \
    } break;                                                                                  \
    default:                                                                                  \
      SYMNET_THROW << "no element type of " << ::symnet::DTypeSize(dtype) << " bytes (dtype " \
                   << (dtype) << ")";                                                         \
  }

/*!
 * \brief Binds NAME and REQ for a kernel that copies elements under a request: a write (or an
 *  in-place write) moves the bits of any dtype; kAddTo adds in the element's own float type;
 *  kNullOp runs nothing.
 */
#define SYMNET_COPY_REQ_SWITCH(dtype, req, NAME, REQ, ...) \
  if ((req) == ::symnet::kAddTo) {                         \
    constexpr int REQ = ::symnet::kAddTo;                  \
    SYMNET_FLOAT_TYPE_SWITCH(dtype, NAME, __VA_ARGS__)     \
  } else if ((req) != ::symnet::kNullOp) {                 \
    constexpr int REQ = ::symnet::kWriteTo;                \
    SYMNET_BITS_TYPE_SWITCH(dtype, NAME, __VA_ARGS__)      \
  }

namespace symnet {
namespace ops {

/*!
 * \brief static_cast<T>(v) as MXNet applies it to a double attribute (one_hot's on_value, full's
 *  value): integers truncate toward zero. A double outside int64's range (or NaN) makes that
 *  conversion undefined, so it is clamped first (NaN becomes 0); unsigned types wrap from int64.
 */
template <typename T>
T CastValue(double v) {
  if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
    const double c = v != v ? 0.0 : (v < -9.2e18 ? -9.2e18 : (v > 9.2e18 ? 9.2e18 : v));
    return static_cast<T>(static_cast<int64_t>(c));
  } else {
    return T(static_cast<AccType<T>>(v));
  }
}

/*! \brief The bits of CastValue<T>(v) for the T of dtype `t`, in the low bytes. */
inline uint64_t ValueBits(double v, DType t) {
  uint64_t bits = 0;
  SYMNET_TYPE_SWITCH(t, T, {
    const T x = CastValue<T>(v);
    std::memcpy(&bits, &x, sizeof(T));  // little-endian: the value's bytes come first
  });
  return bits;
}

/*! \brief `v` as a kernel under SYMNET_COPY_REQ_SWITCH takes it: for a write, the bits of v in
 *  dtype `t` (T is then an unsigned type); for kAddTo, v in T itself (a float type). */
template <int req, typename T>
T CopyValue(double v, DType t) {
  if constexpr (req == kAddTo) {
    return CastValue<T>(v);
  } else {
    return static_cast<T>(ValueBits(v, t));
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_BITS_UTIL_H_
