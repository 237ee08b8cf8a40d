/*!
 * \brief SYMNET_NUMERIC_TYPE_SWITCH: the dtype switch of MXNet 1.x's arithmetic, which takes the
 *  integer dtypes as well as the floating ones. It lives here rather than in symnet/dtype.h so
 *  that only the operators that take integers include it.
 */
#ifndef SYMNET_OPERATORS_NUMERIC_TYPE_SWITCH_H_
#define SYMNET_OPERATORS_NUMERIC_TYPE_SWITCH_H_

#include "symnet/dtype.h"

/*! \brief Runs the body with NAME bound to the C++ type of a float dtype or of uint8, int8, int32
 *  or int64 (not bool: MXNet 1.x's arithmetic has no bool). */
#define SYMNET_NUMERIC_TYPE_SWITCH(dtype, NAME, ...)                                          \
  switch (dtype) {                                                                            \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat32, float, NAME, __VA_ARGS__)                    \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat64, double, NAME, __VA_ARGS__)                   \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat16, ::symnet::half_t, NAME, __VA_ARGS__)         \
    SYMNET_TYPE_CASE_(::symnet::DType::kBFloat16, ::symnet::bf16_t, NAME, __VA_ARGS__)        \
    SYMNET_TYPE_CASE_(::symnet::DType::kUint8, uint8_t, NAME, __VA_ARGS__)                    \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt8, int8_t, NAME, __VA_ARGS__)                      \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt32, int32_t, NAME, __VA_ARGS__)                    \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt64, int64_t, NAME, __VA_ARGS__)                    \
    default:                                                                                  \
      SYMNET_THROW << "this operation supports the float and integer dtypes (not bool), not " \
                   << (dtype);                                                                \
  }

#endif  // SYMNET_OPERATORS_NUMERIC_TYPE_SWITCH_H_
