/*!
 * \brief Readers facing damaged or hostile bytes (the fuzz targets' findings and the size limits,
 *  issue 14): each gets a clear symnet::Error, never an allocation of what a length word claims.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../test_util.h"
#include "src/core/json.h"
#include "src/io/image_augment.h"
#include "src/io/jpeg_codec.h"
#include "symnet/file_io.h"
#include "symnet/ndarray_io.h"
#include "symnet/recordio.h"
#include "symnet/train.h"

namespace symnet {
namespace {

using test::ErrorMessage;

std::string Word(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
constexpr uint32_t kMagic = 0xced7230a;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(HostileRecordIO, RecordsWithTheMagicInsideReadBackWhole) {
  // the writer splits a record at every 4-byte-aligned magic; the reader must join the parts
  const std::string magic = Word(kMagic);
  const std::vector<std::string> records = {"", "a", magic, "xx" + magic + "yy" + magic + magic,
                                            std::string(37, 'q')};
  char tmpl[] = "/tmp/symnet_rec_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/r.rec";
  {
    RecordIOFile w(path, 'w');
    for (const auto& r : records) w.Write(r);
    w.Close();
  }
  RecordIOFile r(path, 'r');
  std::string rec;
  for (const auto& want : records) {
    ASSERT_TRUE(r.Read(&rec));
    EXPECT_EQ(rec, want);
  }
  EXPECT_FALSE(r.Read(&rec));
  std::system(("rm -rf '" + std::string(tmpl) + "'").c_str());
}

TEST(HostileRecordIO, ALengthBeyondTheFileIsAnErrorNotAnAllocation) {
  // 8 bytes that claim a 512 MB record: the reader compares with the bytes left first
  const std::string bytes = Word(kMagic) + Word((1u << 29) - 1);
  auto f = RecordIOFile::FromBytes(bytes, "big.rec");
  std::string rec;
  const std::string msg = ErrorMessage([&] { f->Read(&rec); });
  EXPECT_TRUE(Contains(msg, "'big.rec' is damaged at byte 0")) << msg;
  EXPECT_TRUE(Contains(msg, "536870911 bytes, but the file has 0 left")) << msg;
}

TEST(HostileRecordIO, BadMagicFlagsAndTruncationNameTheByte) {
  std::string rec;
  const std::string good = Word(kMagic) + Word(4) + "abcd";
  auto bad_magic = RecordIOFile::FromBytes(good + Word(0x12345678) + Word(0), "m.rec");
  ASSERT_TRUE(bad_magic->Read(&rec));
  std::string msg = ErrorMessage([&] { bad_magic->Read(&rec); });
  EXPECT_TRUE(Contains(msg, "damaged at byte 12 (record 1")) << msg;
  EXPECT_TRUE(Contains(msg, "bad magic 0x12345678")) << msg;
  // a continuation part (flag 2) where a record must start
  auto bad_flag = RecordIOFile::FromBytes(Word(kMagic) + Word(2u << 29), "f.rec");
  msg = ErrorMessage([&] { bad_flag->Read(&rec); });
  EXPECT_TRUE(Contains(msg, "part 0 of a record has continuation flag 2")) << msg;
  // a first part (flag 1) whose continuation never comes
  auto cut = RecordIOFile::FromBytes(Word(kMagic) + Word(1u << 29 | 4) + "abcd", "c.rec");
  msg = ErrorMessage([&] { cut->Read(&rec); });
  EXPECT_TRUE(Contains(msg, "a record header needs 8 bytes, 0 left")) << msg;
  auto seek = RecordIOFile::FromBytes(good, "s.rec");
  msg = ErrorMessage([&] { seek->Seek(100); });
  EXPECT_TRUE(Contains(msg, "cannot seek to byte 100, the file has 12 bytes")) << msg;
}

TEST(HostileIndexFile, NegativeOffsetsAndTrailingTextAreErrors) {
  EXPECT_EQ(ParseIndexFile("0\t0\n1\t12\n\n", "a.idx"), (std::vector<size_t>{0, 12}));
  EXPECT_TRUE(Contains(ErrorMessage([] { ParseIndexFile("0\t-5\n", "n.idx"); }),
                       "index file 'n.idx' line 1 is not 'key<TAB>offset'"));
  EXPECT_TRUE(Contains(ErrorMessage([] { ParseIndexFile("0\t0\n1\t4 x\n", "t.idx"); }), "line 2"));
}

TEST(HostileJSON, NumbersOutsideInt64AreErrorsNotUndefinedCasts) {
  EXPECT_EQ(json::ToInt64(-3, "x"), -3);
  EXPECT_TRUE(Contains(ErrorMessage([] { json::ToInt64(1e300, "num_update"); }),
                       "num_update is 1e+300, expected a whole number"));
  EXPECT_FALSE(json::IsIndexBelow(std::nan(""), 4));
  EXPECT_FALSE(json::IsIndexBelow(1.5, 4));
  EXPECT_TRUE(json::IsIndexBelow(3, 4));
}

TEST(HostileSymbolJSON, NodeIndicesThatAreNotWholeNumbersAreErrors) {
  // inf and NaN passed every "< 0 || >= size" check and indexed the node list out of bounds
  const std::string inf_doc =
      R"({"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[1e999, 0, 0]]})";
  EXPECT_TRUE(Contains(ErrorMessage([&] { Symbol::FromJSON(inf_doc); }), "a head refers to node"));
  const std::string dep_doc =
      R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
                    {"op": "relu", "name": "r", "inputs": [[0, 0, 0]], "control_deps": [-0.5]}],
          "heads": [[1, 0, 0]]})";
  EXPECT_TRUE(Contains(ErrorMessage([&] { Symbol::FromJSON(dep_doc); }), "bad control dependency"));
}

TEST(HostileUtf8, TextAndNamesMustBeUtf8) {
  EXPECT_EQ(FindInvalidUtf8("plain \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), std::string::npos);
  EXPECT_EQ(FindInvalidUtf8("ab\xad"), 2u);            // a lone continuation byte
  EXPECT_EQ(FindInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("x\xed\xa0\x80"), 1u);     // a UTF-16 surrogate
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xe2\x82"), 0u);          // cut short
  const std::string msg = ErrorMessage([] { Symbol::FromJSON("{\"nodes\": \"\xff\"}"); });
  EXPECT_TRUE(Contains(msg, "line 1, column 12: invalid UTF-8 byte 0xff")) << msg;
  NDArray a(Shape{1});
  std::vector<NDArray> back;
  std::vector<std::string> names;
  const std::string bytes = SaveNDArrayList({a}, {"w\xff"});
  const std::string m2 = ErrorMessage([&] { LoadNDArrayList(bytes, &back, &names, "n.params"); });
  EXPECT_TRUE(Contains(m2, "the name of array 0 is not valid UTF-8")) << m2;
}

TEST(HostileSymbolJSON, PoolingStrideOrPadOfTheWrongLengthIsAnError) {
  // found by fuzz_symbol_json: a one-dim stride on 2-D pooling read past the end of the stride
  const std::string doc = R"json({"nodes": [
      {"op": "null", "name": "x", "attrs": {"__shape__": "(1, 2, 6, 6)"}, "inputs": []},
      {"op": "Pooling", "name": "p", "attrs": {"kernel": "(2, 2)", "stride": "(22, )"},
       "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]})json";
  const Symbol s = Symbol::FromJSON(doc);
  std::vector<Shape> args, outs, aux;
  const std::string msg = ErrorMessage([&] { s.InferShape({}, &args, &outs, &aux, true); });
  EXPECT_TRUE(
      Contains(msg, "Pooling stride (22,) must have one dim per spatial dim of (1, 2, 6, 6)"))
      << msg;
}

TEST(HostileStates, AnUpdateCountBeyondInt64IsAnError) {
  train::OptimizerStates st;
  st.num_update = 123456789;
  char tmpl[] = "/tmp/symnet_states_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/a.states";
  train::SaveOptimizerStates(path, st);
  std::string bytes = ReadFile(path, "states");
  std::system(("rm -rf '" + std::string(tmpl) + "'").c_str());
  EXPECT_EQ(train::ParseOptimizerStates(bytes, "ok.states").num_update, 123456789);
  const size_t at = bytes.find("123456789");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 9, "1e300    ");  // same length: the meta array's size stays right
  const std::string msg = ErrorMessage([&] { train::ParseOptimizerStates(bytes, "h.states"); });
  EXPECT_TRUE(Contains(msg, "num_update is 1e+300, expected a whole number")) << msg;
}

TEST(HostileParams, AScalarSurvivesASaveLoadRoundTrip) {
  NDArray s(Shape::Scalar());
  const float v = 2.5f;
  s.CopyFromBuffer(&v, DType::kFloat32);
  std::vector<NDArray> back;
  std::vector<std::string> names;
  LoadNDArrayList(SaveNDArrayList({s}, {"s"}), &back, &names, "scalar");
  ASSERT_EQ(back.size(), 1u);
  ASSERT_FALSE(back[0].is_none());
  EXPECT_EQ(back[0].shape(), Shape::Scalar());
  EXPECT_EQ(test::ToVector(back[0]), std::vector<double>{2.5});
}

TEST(HostileParams, AScalarMakesTheWholeFileV3AndTheNoneArraySurvives) {
  // MXNet takes one layout per file: a 0-d array beside others makes every array V3, where the
  // none array is written with ndim -1
  NDArray s(Shape::Scalar());
  const float v = 0.625f;
  s.CopyFromBuffer(&v, DType::kFloat32);
  NDArray m(Shape{1, 2});
  const float mv[] = {1.5f, -2.0f};
  m.CopyFromBuffer(mv, DType::kFloat32);
  const std::string bytes = SaveNDArrayList({s, NDArray(), m}, {"s", "none", "m"});
  size_t v2 = 0, v3 = 0;
  for (size_t i = 0; i + 4 <= bytes.size(); ++i) {
    uint32_t word;
    std::memcpy(&word, bytes.data() + i, 4);
    v2 += word == 0xF993fac9u;
    v3 += word == 0xF993facau;
  }
  EXPECT_EQ(v2, 0u);
  EXPECT_EQ(v3, 3u);
  std::vector<NDArray> back;
  std::vector<std::string> names;
  LoadNDArrayList(bytes, &back, &names, "mixed");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(test::ToVector(back[0]), std::vector<double>{0.625});
  EXPECT_TRUE(back[1].is_none());
  EXPECT_EQ(back[2].shape(), (Shape{1, 2}));
  EXPECT_EQ(test::ToVector(back[2]), (std::vector<double>{1.5, -2.0}));
}

/*! \brief A real JPEG whose frame header then claims `height` x `width`. */
std::string JpegClaiming(int height, int width) {
  io::Image img;
  img.height = img.width = 8;
  img.rgb.assign(8 * 8 * 3, 100);
  std::string jpg = io::EncodeJPEG(img, 90);
  const size_t sof = jpg.find("\xFF\xC0");
  EXPECT_NE(sof, std::string::npos);
  jpg[sof + 5] = static_cast<char>(height >> 8);
  jpg[sof + 6] = static_cast<char>(height & 255);
  jpg[sof + 7] = static_cast<char>(width >> 8);
  jpg[sof + 8] = static_cast<char>(width & 255);
  return jpg;
}

TEST(HostileJPEG, AHugeClaimedImageIsRefusedBeforeDecoding) {
  io::Image img;
  std::string why;
  EXPECT_FALSE(io::DecodeJPEG(JpegClaiming(60000, 60000), &img, &why));
  EXPECT_TRUE(Contains(why, "JPEG image of 60000 x 60000 pixels exceeds the limit of 268435456"))
      << why;
  EXPECT_TRUE(img.rgb.empty());
  // within the limit but without the data: damaged, stopped at the first missing row
  EXPECT_FALSE(io::DecodeJPEG(JpegClaiming(2000, 2000), &img, &why));
  EXPECT_TRUE(Contains(why, "damaged JPEG data")) << why;
}

TEST(HostileJPEG, ResizingBeyondTheLimitIsAnError) {
  io::Image thin;
  thin.height = 1;
  thin.width = 60000;
  thin.rgb.assign(60000 * 3, 7);
  // the shorter side to 5000 would make 5000 x 300,000,000 pixels
  const std::string msg = ErrorMessage([&] { io::Resize(thin, 5000, 300000000); });
  EXPECT_TRUE(Contains(msg, "exceeds the limit of 268435456 pixels")) << msg;
}

}  // namespace
}  // namespace symnet
