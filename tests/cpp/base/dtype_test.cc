/*! \brief DType flags, names, sizes and 16-bit conversions against reference bit patterns. */
#include "symnet/dtype.h"

#include <gtest/gtest.h>
#include <immintrin.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

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

// An independent reference for the software conversions: the value of a half from its fields
// with ldexp, and float -> half by picking the nearer of the two neighbouring halves in double.
double HalfValue(uint32_t b) {
  const int exp = (b >> 10) & 0x1f;
  const int mant = b & 0x3ff;
  const double mag = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
  return (b & 0x8000) ? -mag : mag;
}

uint16_t NearestHalf(float f) {
  const uint32_t sign = std::signbit(f) ? 0x8000u : 0u;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7c00u);  // past max + half a step
  uint32_t lo = 0;  // largest finite half magnitude <= a (binary search over the ordered bits)
  for (uint32_t step = 0x4000; step; step >>= 1)
    if (lo + step <= 0x7bffu && HalfValue(lo + step) <= a) lo += step;
  if (lo == 0x7bffu) return static_cast<uint16_t>(sign | lo);
  const double below = a - HalfValue(lo), above = HalfValue(lo + 1) - a;
  const uint32_t r = below < above ? lo : above < below ? lo + 1 : ((lo & 1u) ? lo + 1 : lo);
  return static_cast<uint16_t>(sign | r);
}

// 300,000 random finite floats; every other one drawn near the half range (exponents of about
// 2^-25 .. 2^4), where the rounding decisions are
std::vector<float> RandomFloats(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> bits;
  std::vector<float> out;
  for (int i = 0; i < 300000; ++i) {
    uint32_t x = bits(rng);
    if (i & 1) x = (x & 0x807fffffu) | ((0x66u + x % 0x1eu) << 23);
    float f;
    std::memcpy(&f, &x, 4);
    if (std::isfinite(f)) out.push_back(f);
  }
  return out;
}

TEST(DType, HalfSoftwarePathMatchesAnIndependentReference) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = detail::HalfBitsToFloat(static_cast<uint16_t>(b));
    if ((b & 0x7c00u) == 0x7c00u) {  // inf and nan
      EXPECT_TRUE((b & 0x3ffu) ? std::isnan(f) : std::isinf(f)) << b;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), HalfValue(b)) << b;
    ASSERT_EQ(detail::FloatToHalfBits(f), b) << b;  // every half is exactly representable
  }
  for (float f : RandomFloats(7)) ASSERT_EQ(detail::FloatToHalfBits(f), NearestHalf(f)) << f;
}

// The software path must agree bit for bit with the F16C instructions that half_t uses when
// compiled with -mf16c; asked at run time so that the portable build tests it too.
__attribute__((target("f16c"))) uint16_t HardwareFloatToHalf(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float HardwareHalfToFloat(uint16_t h) { return _cvtsh_ss(h); }

TEST(DType, HalfSoftwareMatchesF16C) {
  if (!CpuHasF16C()) GTEST_SKIP() << "CPU lacks F16C";
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = detail::HalfBitsToFloat(static_cast<uint16_t>(b));
    const float hw = HardwareHalfToFloat(static_cast<uint16_t>(b));
    if (std::isnan(hw)) {
      ASSERT_TRUE(std::isnan(f)) << b;
      continue;
    }
    ASSERT_EQ(f, hw) << b;
  }
  for (float f : RandomFloats(11))
    ASSERT_EQ(detail::FloatToHalfBits(f), HardwareFloatToHalf(f)) << f;
  for (float f : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})
    ASSERT_EQ(detail::FloatToHalfBits(f), HardwareFloatToHalf(f)) << f;
}

TEST(DType, BFloat16RoundsToInfOnlyPastItsMaximum) {
  const float bf_max = detail::BF16BitsToFloat(0x7f7f);  // 3.3895e38
  EXPECT_EQ(bf16_t(bf_max).bits, 0x7f7f);
  EXPECT_EQ(bf16_t(-bf_max).bits, 0xff7f);
  // halfway between the maximum and 2^128 (0x7f7f8000) rounds to even: the odd 0x7f7f goes up
  float halfway;
  const uint32_t hw_bits = 0x7f7f8000u;
  std::memcpy(&halfway, &hw_bits, 4);
  EXPECT_EQ(bf16_t(halfway).bits, 0x7f80);
  EXPECT_TRUE(std::isinf(static_cast<float>(bf16_t(halfway))));
  float below;
  const uint32_t below_bits = 0x7f7f7fffu;
  std::memcpy(&below, &below_bits, 4);
  EXPECT_EQ(bf16_t(below).bits, 0x7f7f);
  EXPECT_EQ(bf16_t(std::numeric_limits<float>::max()).bits, 0x7f80);
  EXPECT_EQ(bf16_t(-std::numeric_limits<float>::max()).bits, 0xff80);
  EXPECT_EQ(bf16_t(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(std::numeric_limits<float>::quiet_NaN()))));
  // a nan whose payload sits only in the low 16 bits must not truncate to inf
  float low_nan;
  const uint32_t low_nan_bits = 0x7f800001u;
  std::memcpy(&low_nan, &low_nan_bits, 4);
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(low_nan))));
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
