/*! \brief DType flags, names, sizes and 16-bit conversions against reference bit patterns. */
#include "symnet/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace symnet {
namespace {

TEST(DType, MXNetFlags) {
  EXPECT_EQ(static_cast<int>(DType::kFloat32), 0);
  EXPECT_EQ(static_cast<int>(DType::kFloat64), 1);
  EXPECT_EQ(static_cast<int>(DType::kFloat16), 2);
  EXPECT_EQ(static_cast<int>(DType::kUint8), 3);
  EXPECT_EQ(static_cast<int>(DType::kInt32), 4);
  EXPECT_EQ(static_cast<int>(DType::kInt8), 5);
  EXPECT_EQ(static_cast<int>(DType::kInt64), 6);
  EXPECT_EQ(static_cast<int>(DType::kBool), 7);
  EXPECT_EQ(static_cast<int>(DType::kBFloat16), 12);
}

TEST(DType, NamesAndSizes) {
  EXPECT_EQ(DTypeFromName("bfloat16"), DType::kBFloat16);
  EXPECT_EQ(DTypeFromName("2"), DType::kFloat16);
  EXPECT_EQ(DTypeSize(DType::kFloat64), 8u);
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_STREQ(DTypeName(DType::kInt64), "int64");
  EXPECT_THROW(DTypeFromName("float17"), Error);
}

TEST(DType, HalfExactValues) {
  EXPECT_EQ(half_t(1.0f).bits, 0x3c00);
  EXPECT_EQ(half_t(-2.0f).bits, 0xc000);
  EXPECT_EQ(half_t(65504.0f).bits, 0x7bff);
  EXPECT_EQ(half_t(65520.0f).bits, 0x7c00);  // halfway to the next step rounds to inf
  EXPECT_EQ(half_t(65519.0f).bits, 0x7bff);
  EXPECT_EQ(half_t(std::ldexp(1.0f, -24)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(half_t(std::ldexp(1.0f, -25)).bits, 0x0000);  // ties to even: zero
  EXPECT_EQ(half_t(std::ldexp(1.5f, -25)).bits, 0x0001);
  EXPECT_TRUE(std::isnan(static_cast<float>(half_t(NAN))));
  EXPECT_EQ(static_cast<float>(half_t::FromBits(0x7c00)), std::numeric_limits<float>::infinity());
}

// The software path must agree with the hardware (F16C) path bit for bit.
TEST(DType, HalfSoftwareMatchesHardware) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const half_t h = half_t::FromBits(static_cast<uint16_t>(b));
    const float f = detail::HalfBitsToFloat(h.bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(f, static_cast<float>(h)) << b;
    ASSERT_EQ(detail::FloatToHalfBits(f), b) << b;  // every half is exactly representable
  }
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    uint32_t x = bits(rng);
    float f;
    std::memcpy(&f, &x, 4);
    if (std::isnan(f)) continue;
    ASSERT_EQ(detail::FloatToHalfBits(f), half_t(f).bits) << f;
  }
}

TEST(DType, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(bf16_t(1.0f).bits, 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0)
  EXPECT_EQ(bf16_t(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);
  EXPECT_EQ(bf16_t(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3f82);
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(NAN))));
  EXPECT_EQ(static_cast<float>(bf16_t(3.0f)), 3.0f);
}

TEST(DType, ConvertElements) {
  const float src[4] = {1.5f, -2.25f, 0.0f, 3.0f};
  double d[4];
  ConvertElements(src, DType::kFloat32, d, DType::kFloat64, 4);
  EXPECT_EQ(d[1], -2.25);
  half_t h[4];
  ConvertElements(d, DType::kFloat64, h, DType::kFloat16, 4);
  EXPECT_EQ(static_cast<float>(h[0]), 1.5f);
  int32_t i[4];
  ConvertElements(h, DType::kFloat16, i, DType::kInt32, 4);
  EXPECT_EQ(i[1], -2);
  bool b[4];
  ConvertElements(src, DType::kFloat32, b, DType::kBool, 4);
  EXPECT_TRUE(b[0]);
  EXPECT_FALSE(b[2]);
}

}  // namespace
}  // namespace symnet
