/*! \brief NDArray creation, views sharing memory, conversion and error messages. */
#include "symnet/ndarray.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "symnet/runtime.h"

namespace symnet {
namespace {

TEST(NDArray, CreateFillCopy) {
  NDArray z = NDArray::Zeros({2, 3});
  EXPECT_EQ(z.Size(), 6);
  EXPECT_EQ(z.GetDouble(5), 0.0);
  NDArray f = NDArray::Full({4}, 2.5, Device::CPU(), DType::kFloat16);
  EXPECT_EQ(f.GetDouble(3), 2.5);
  NDArray c = f.Copy();
  c.Fill(1.0);
  EXPECT_EQ(f.GetDouble(0), 2.5);
  EXPECT_EQ(c.GetDouble(0), 1.0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(z.dptr()) % kStorageAlign, 0u);
}

TEST(NDArray, FromBufferAndAsType) {
  const double src[4] = {1.25, -2.5, 3.75, 1e6};
  NDArray a = NDArray::FromBuffer(src, {2, 2}, DType::kFloat64, DType::kFloat32);
  EXPECT_EQ(a.dtype(), DType::kFloat32);
  EXPECT_EQ(a.GetDouble(1), -2.5);
  NDArray h = a.AsType(DType::kFloat16);
  EXPECT_TRUE(std::isinf(h.GetDouble(3)));
  NDArray i = a.AsType(DType::kInt32);
  EXPECT_EQ(i.GetDouble(2), 3.0);
}

TEST(NDArray, ViewsShareMemory) {
  NDArray a = NDArray::Zeros({3, 4});
  NDArray row = a.At(1);
  EXPECT_EQ(row.shape(), Shape{4});
  row.Fill(7);
  EXPECT_EQ(a.GetDouble(4), 7.0);
  EXPECT_EQ(a.GetDouble(3), 0.0);
  NDArray s = a.Slice(1, 3);
  EXPECT_EQ(s.shape(), (Shape{2, 4}));
  EXPECT_EQ(s.GetDouble(0), 7.0);
  NDArray r = a.Reshape({-1, 6});
  EXPECT_EQ(r.shape(), (Shape{2, 6}));
  EXPECT_EQ(r.dptr(), a.dptr());
  EXPECT_THROW(a.Reshape({5, -1}), Error);
  EXPECT_THROW(a.Slice(2, 5), Error);
}

TEST(NDArray, WritesBumpTheWriteVersionAndReadsDoNot) {
  NDArray a = NDArray::Zeros({2, 3});
  NDArray b = NDArray::Full({6}, 3.0);
  const ContentVersion* v = a.version();
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->stamp(), 0u);
  EXPECT_NE(v->stamp(), b.version()->stamp());  // stamps are never shared
  auto bumped = [v](auto&& op) {
    const uint64_t before = v->stamp();
    op();
    return v->stamp() != before;
  };
  EXPECT_FALSE(bumped([&] { a.read_ptr(); }));
  EXPECT_FALSE(bumped([&] { a.read_data(); }));
  EXPECT_FALSE(bumped([&] { a.GetDouble(0); }));
  EXPECT_FALSE(bumped([&] { b.CopyFrom(a); }));  // a is only read
  std::vector<float> host(6);
  EXPECT_FALSE(bumped([&] { a.CopyToBuffer(host.data(), DType::kFloat32); }));
  EXPECT_TRUE(bumped([&] { a.dptr(); }));
  EXPECT_TRUE(bumped([&] { a.data(); }));
  EXPECT_EQ(a.data().version_, v);
  EXPECT_EQ(a.read_data().version_, v);
  EXPECT_TRUE(bumped([&] { a.Fill(1); }));
  EXPECT_TRUE(bumped([&] { a.CopyFrom(b); }));
  EXPECT_TRUE(bumped([&] { a.CopyFromBuffer(host.data(), DType::kFloat32); }));
  EXPECT_TRUE(bumped([&] { a.MarkWritten(); }));
  // views share their storage's version: writing a row invalidates the whole array
  EXPECT_EQ(a.Slice(1, 2).version(), v);
  EXPECT_TRUE(bumped([&] { a.At(1).Fill(2); }));
  EXPECT_EQ(a.read_data().Reshape({6}).version_, v);
  a.version()->Untrack();
  EXPECT_EQ(v->stamp(), 0u);
  a.Fill(3);
  EXPECT_EQ(v->stamp(), 0u);  // for good
  EXPECT_EQ(NDArray().version(), nullptr);
}

TEST(NDArray, CopyFromChecksSize) {
  NDArray a = NDArray::Zeros({2, 3});
  NDArray b = NDArray::Full({6}, 3.0, Device::CPU(), DType::kFloat64);
  a.CopyFrom(b);  // same number of elements, dtype converted
  EXPECT_EQ(a.GetDouble(5), 3.0);
  NDArray c = NDArray::Zeros({5});
  try {
    a.CopyFrom(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(5,)"), std::string::npos);
  }
}

TEST(NDArray, GPUContextWithoutAGPUIsAClearError) {
  if (NumGPUs() > 0) {  // with a device the allocation must work
    NDArray a({2}, Device::GPU(0));
    EXPECT_EQ(a.device(), Device::GPU(0));
    return;
  }
  try {
    NDArray a({2}, Device::GPU(0));
    FAIL() << "allocating on gpu(0) without a GPU did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu(0)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace symnet
