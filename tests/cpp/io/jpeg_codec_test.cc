/*! \brief JPEG decoding to RGB and to grayscale (src/io/jpeg_codec.h). */
#include "src/io/jpeg_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace symnet {
namespace {

/*! \brief A smooth colour image (JPEG keeps it within a few levels). */
io::Image Gradient(int height, int width) {
  io::Image img;
  img.height = height;
  img.width = width;
  img.rgb.resize(static_cast<size_t>(height) * width * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &img.rgb[(static_cast<size_t>(y) * width + x) * 3];
      p[0] = static_cast<uint8_t>(x * 255 / width);
      p[1] = static_cast<uint8_t>(y * 255 / height);
      p[2] = static_cast<uint8_t>(128 + (x - y) / 2);
    }
  return img;
}

TEST(JpegCodec, GrayscaleIsTheLumaOfTheColourImage) {
  const io::Image src = Gradient(24, 40);
  const std::string jpg = io::EncodeJPEG(src, 95);
  io::Image rgb;
  std::string why;
  ASSERT_TRUE(io::DecodeJPEG(jpg, &rgb, &why)) << why;
  int height = 0, width = 0;
  std::vector<uint8_t> gray;
  ASSERT_TRUE(io::DecodeJPEGGray(jpg, &height, &width, &gray, &why)) << why;
  ASSERT_EQ(height, 24);
  ASSERT_EQ(width, 40);
  ASSERT_EQ(gray.size(), 24u * 40u);
  double worst = 0;
  for (size_t i = 0; i < gray.size(); ++i) {
    const uint8_t* p = &rgb.rgb[i * 3];
    const double luma = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
    worst = std::max(worst, std::fabs(luma - gray[i]));
  }
  // the luma plane itself, not a conversion of the decoded (chroma-upsampled) colours
  EXPECT_LE(worst, 3.0);
}

TEST(JpegCodec, GrayscaleDecodingFailsOnDamagedData) {
  const std::string jpg = io::EncodeJPEG(Gradient(32, 32), 90);
  int height = 0, width = 0;
  std::vector<uint8_t> gray;
  std::string why;
  EXPECT_FALSE(io::DecodeJPEGGray(jpg.substr(0, jpg.size() / 2), &height, &width, &gray, &why));
  EXPECT_NE(why.find("JPEG"), std::string::npos) << why;
  EXPECT_FALSE(io::DecodeJPEGGray("GIF89a", &height, &width, &gray, &why));
  EXPECT_NE(why.find("no SOI marker"), std::string::npos) << why;
}

}  // namespace
}  // namespace symnet
