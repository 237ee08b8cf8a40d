/*!
 * \brief GPU tests (ctest -L gpu). They run the shared element-wise functors through
 *  Kernel<OP, gpu> and query the CUDA libraries; without a GPU they report skipped.
 */
#include <gtest/gtest.h>

#include "symnet/runtime.h"

namespace symnet {
namespace {

TEST(GPU, KernelSelfTest) {
  if (!BuiltWithCUDA()) GTEST_SKIP() << "built without CUDA";
  if (NumGPUs() == 0) GTEST_SKIP() << "no GPU on this machine";
  std::string why;
  EXPECT_TRUE(cuda::SelfTest(0, &why)) << why;
}

TEST(GPU, LibraryVersions) {
  if (!BuiltWithCUDA()) GTEST_SKIP() << "built without CUDA";
  const auto v = cuda::Versions();
  EXPECT_FALSE(v.at("CUDA_VERSION").empty());
  EXPECT_FALSE(v.at("CUBLAS_VERSION").empty());
  EXPECT_EQ(v.at("CUDNN_VERSION").substr(0, 2), "9.");
}

}  // namespace
}  // namespace symnet
