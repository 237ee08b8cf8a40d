/*!
 * \brief ImageRecordIter from C++: options from strings (ImageRecordIterParams::FromStrings,
 * MXNet's names and value syntax), their errors, and the augmenter's geometry on known images.
 */
#include "symnet/image_record_iter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "../test_util.h"
#include "src/io/image_augment.h"
#include "src/io/image_resample.h"
#include "src/io/jpeg_codec.h"
#include "symnet/recordio.h"

namespace symnet {
namespace {

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ImageRecordIterOptions, FromStringsTakesMxnetsNamesAndSyntax) {
  const ImageRecordIterParams p = ImageRecordIterParams::FromStrings({{"path_imgrec", "a.rec"},
                                                                      {"data_shape", "(3, 32, 28)"},
                                                                      {"batch_size", "16"},
                                                                      {"rand_crop", "True"},
                                                                      {"rand_mirror", "1"},
                                                                      {"min_aspect_ratio", "None"},
                                                                      {"max_aspect_ratio", "0.25"},
                                                                      {"seed_aug", "7"},
                                                                      {"dtype", "uint8"},
                                                                      {"ctx", "cpu"},
                                                                      {"rotate_list", "0,90, 180"},
                                                                      {"shuffle_chunk_size", "64"},
                                                                      {"mean_r", "123.68"}});
  EXPECT_EQ(p.path_imgrec, "a.rec");
  EXPECT_EQ(p.data_shape, (Shape{3, 32, 28}));
  EXPECT_EQ(p.batch_size, 16);
  EXPECT_TRUE(p.rand_crop && p.rand_mirror);
  EXPECT_FALSE(p.min_aspect_ratio.has_value());
  EXPECT_FLOAT_EQ(p.max_aspect_ratio, 0.25f);
  ASSERT_TRUE(p.seed_aug.has_value());
  EXPECT_EQ(*p.seed_aug, 7);
  EXPECT_EQ(p.dtype, DType::kUint8);
  EXPECT_EQ(p.ctx, "cpu");
  EXPECT_EQ(p.rotate_list, (std::vector<int>{0, 90, 180}));
  EXPECT_EQ(p.shuffle_chunk_size, 64u);
  EXPECT_FLOAT_EQ(p.mean_r, 123.68f);
  // MXNet's defaults where not given
  EXPECT_EQ(p.resize, -1);
  EXPECT_EQ(p.inter_method, 1);
  EXPECT_EQ(p.fill_value, 255);
  EXPECT_TRUE(p.round_batch && p.verbose);
  EXPECT_FLOAT_EQ(p.min_random_area, 1.0f);
  EXPECT_EQ(p.aug_seq, "aug_default");
  EXPECT_EQ(ImageRecordIterParams::OptionNames().size(), 63u);  // MXNet's 61, rotate_list, skip_bad
}

TEST(ImageRecordIterOptions, UnknownOptionsAndBadValuesAreNamed) {
  const std::map<std::string, std::string> base{{"data_shape", "(3,8,8)"}, {"batch_size", "2"}};
  auto with = [&](const std::string& k, const std::string& v) {
    auto m = base;
    m[k] = v;
    return m;
  };
  std::string msg =
      test::ErrorMessage([&] { ImageRecordIterParams::FromStrings(with("rezise", "3")); });
  EXPECT_TRUE(
      Contains(msg, "ImageRecordIter: unknown option 'rezise'; accepted: aug_seq, batch_size"))
      << msg;
  msg = test::ErrorMessage([&] { ImageRecordIterParams::FromStrings(with("pad", "two")); });
  EXPECT_TRUE(Contains(msg, "bad value 'two' for option 'pad'")) << msg;
  msg = test::ErrorMessage([&] { ImageRecordIterParams::FromStrings(with("dtype", "complex")); });
  EXPECT_TRUE(Contains(msg, "bad value 'complex' for option 'dtype'")) << msg;
  msg = test::ErrorMessage([&] { ImageRecordIterParams::FromStrings({{"batch_size", "2"}}); });
  EXPECT_TRUE(Contains(msg, "data_shape")) << msg;
}

/*! \brief A .rec of `n` smooth h x w JPEGs labelled i. */
std::string WriteRec(const std::string& name, int n, int h, int w) {
  const std::string path = ::testing::TempDir() + name;
  RecordIOFile f(path, 'w');
  for (int i = 0; i < n; ++i) {
    io::Image img;
    img.height = h;
    img.width = w;
    img.rgb.resize(static_cast<size_t>(h) * w * 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uint8_t* px = &img.rgb[(static_cast<size_t>(y) * w + x) * 3];
        px[0] = static_cast<uint8_t>(x * 255 / w);
        px[1] = static_cast<uint8_t>(y * 255 / h);
        px[2] = static_cast<uint8_t>(40 * i);
      }
    ImageRecordHeader hdr;
    hdr.label = static_cast<float>(i);
    hdr.id = static_cast<uint64_t>(i);
    f.Write(PackImageRecord(hdr, io::EncodeJPEG(img, 95)));
  }
  f.Close();
  return path;
}

TEST(ImageRecordIterOptions, AnIteratorFromStringsPadsWithFillValue) {
  const std::string rec = WriteRec("image_record_iter_pad.rec", 3, 12, 16);
  ImageRecordIterParams p = ImageRecordIterParams::FromStrings({{"path_imgrec", rec},
                                                                {"data_shape", "(3,20,24)"},
                                                                {"batch_size", "2"},
                                                                {"pad", "4"},
                                                                {"fill_value", "9"},
                                                                {"dtype", "uint8"},
                                                                {"verbose", "False"}});
  ImageRecordIter it(p);
  EXPECT_EQ(it.num_records(), 3u);
  ImageBatch b;
  ASSERT_TRUE(it.Next(&b));
  EXPECT_EQ(b.data.shape(), (Shape{2, 3, 20, 24}));
  EXPECT_EQ(b.data.dtype(), DType::kUint8);
  const uint8_t* d = static_cast<const uint8_t*>(b.data.dptr());
  for (int c = 0; c < 3; ++c)
    for (int x = 0; x < 24; ++x) {
      EXPECT_EQ(d[(c * 20 + 0) * 24 + x], 9);   // the top padding
      EXPECT_EQ(d[(c * 20 + 19) * 24 + x], 9);  // the bottom
    }
  EXPECT_NE(d[(2 * 20 + 10) * 24 + 12], 9);  // the image inside
  ASSERT_TRUE(it.Next(&b));
  EXPECT_EQ(b.pad, 1);
  EXPECT_FALSE(it.Next(&b));
  std::remove(rec.c_str());
}

TEST(ImageAugment, ResizeAndWarpKeepAnImageTheyDoNotChange) {
  io::Mat8 m(7, 9, 3);
  for (size_t i = 0; i < m.data.size(); ++i) m.data[i] = static_cast<uint8_t>(i * 37 % 251);
  for (int interp = 0; interp <= 4; ++interp) {
    EXPECT_EQ(io::ResizeMat(m, 7, 9, interp).data, m.data) << interp;
    const double identity[6] = {1, 0, 0, 0, 1, 0};
    EXPECT_EQ(io::WarpAffineMat(m, identity, 7, 9, interp, 0).data, m.data) << interp;
  }
  // a shift by whole pixels moves the image and fills the rest
  const double shift[6] = {1, 0, 2, 0, 1, 1};
  const io::Mat8 s = io::WarpAffineMat(m, shift, 7, 9, io::kInterLinear, 5);
  EXPECT_EQ(s.row(3)[(4) * 3 + 1], m.row(2)[2 * 3 + 1]);
  EXPECT_EQ(s.row(0)[0], 5);
  // halving a 2x2 block averages it, rounding half up
  io::Mat8 q(2, 2, 1);
  q.data = {1, 2, 2, 2};
  EXPECT_EQ(io::ResizeMat(q, 1, 1, io::kInterLinear).data, (std::vector<uint8_t>{2}));
}

TEST(ImageAugment, RandomDrawsStayInTheirRanges) {
  io::AugRandom r(5);
  for (int i = 0; i < 1000; ++i) {
    const float u = r.Uniform01();
    EXPECT_TRUE(u >= 0.f && u < 1.f);
    const int64_t k = r.UniformInt(-3, 4);
    EXPECT_TRUE(k >= -3 && k <= 4);
  }
  io::AugRandom a(9), b(9);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.UniformInt(0, 100), b.UniformInt(0, 100));
}

}  // namespace
}  // namespace symnet
