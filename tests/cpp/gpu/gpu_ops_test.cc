/*!
 * \brief GPU memory, copies and a few ops against the CPU (ctest -L gpu). Without a GPU every
 *  test reports skipped.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/device/device_ops.h"
#include "symnet/imperative.h"
#include "symnet/ndarray.h"
#include "symnet/runtime.h"

namespace symnet {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (NumGPUs() == 0) GTEST_SKIP() << "no GPU on this machine (NumGPUs() == 0)"

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.37f * static_cast<float>(i)) * 3.f;
  return v;
}

TEST(GPU, CopiesRoundTripInEveryFloatDtype) {
  SKIP_WITHOUT_GPU();
  const auto host = Ramp(1000);
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    NDArray cpu = NDArray::FromBuffer(host.data(), {10, 100}, DType::kFloat32, t);
    NDArray gpu = NDArray::FromBuffer(host.data(), {10, 100}, DType::kFloat32, t, Device::GPU(0));
    std::vector<float> a(1000), b(1000);
    cpu.CopyToBuffer(a.data(), DType::kFloat32);
    gpu.CopyToBuffer(b.data(), DType::kFloat32);
    EXPECT_EQ(a, b) << t;  // the same rounding on both devices
    NDArray back(gpu.shape(), Device::CPU(), t);
    back.CopyFrom(gpu.AsType(t));
    EXPECT_DOUBLE_EQ(back.GetDouble(17), cpu.GetDouble(17));
  }
}

TEST(GPU, ZerosFillAndPoolReuse) {
  SKIP_WITHOUT_GPU();
  NDArray z = NDArray::Zeros({4096}, Device::GPU(0));
  EXPECT_EQ(z.GetDouble(4095), 0.0);
  z.Fill(2.5);
  EXPECT_EQ(z.GetDouble(11), 2.5);
  const size_t in_use = cuda::GetMemoryStats(0).in_use;
  { NDArray tmp({1 << 20}, Device::GPU(0)); }
  EXPECT_EQ(cuda::GetMemoryStats(0).in_use, in_use);  // returned to the pool
  EXPECT_GE(cuda::GetMemoryStats(0).cached, size_t(4) << 20);
}

TEST(GPU, MissingDeviceIsAClearError) {
  SKIP_WITHOUT_GPU();
  try {
    NDArray a({2}, Device::GPU(NumGPUs()));
    FAIL() << "allocating on a device that does not exist should fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu(" + std::to_string(NumGPUs()) + ")"),
              std::string::npos);
  }
}

TEST(GPU, OpsMatchTheCPU) {
  SKIP_WITHOUT_GPU();
  const auto host = Ramp(6 * 8);
  NDArray xc = NDArray::FromBuffer(host.data(), {6, 8}, DType::kFloat32, DType::kFloat32);
  NDArray xg =
      NDArray::FromBuffer(host.data(), {6, 8}, DType::kFloat32, DType::kFloat32, Device::GPU(0));
  for (const char* op : {"sigmoid", "relu", "softmax", "exp"}) {
    NDArray a = Invoke(op, {}, {xc})[0], b = Invoke(op, {}, {xg})[0];
    for (int64_t i = 0; i < a.Size(); ++i)
      EXPECT_NEAR(a.GetDouble(i), b.GetDouble(i), 1e-5) << op << " at " << i;
  }
  NDArray w = NDArray::FromBuffer(host.data(), {5, 8}, DType::kFloat32, DType::kFloat32);
  NDArray wg =
      NDArray::FromBuffer(host.data(), {5, 8}, DType::kFloat32, DType::kFloat32, Device::GPU(0));
  NDArray a = Invoke("FullyConnected", {{"num_hidden", "5"}, {"no_bias", "True"}}, {xc, w})[0];
  NDArray b = Invoke("FullyConnected", {{"num_hidden", "5"}, {"no_bias", "True"}}, {xg, wg})[0];
  for (int64_t i = 0; i < a.Size(); ++i) EXPECT_NEAR(a.GetDouble(i), b.GetDouble(i), 1e-4) << i;
}

TEST(GPU, MixingDevicesInOneCallIsAClearError) {
  SKIP_WITHOUT_GPU();
  NDArray c = NDArray::Zeros({3});
  NDArray g = NDArray::Zeros({3}, Device::GPU(0));
  try {
    Invoke("elemwise_add", {}, {c, g});
    FAIL() << "inputs on two devices should be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("copy the inputs to one device"), std::string::npos);
  }
}

}  // namespace
}  // namespace symnet
