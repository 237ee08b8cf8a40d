/*!
 * \brief LRN's oneDNN primitives are real implementations at this CPU's ISA: a reference kernel
 *  (a name containing "ref") would make AlexNet-style networks crawl on AVX2 CPUs.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symnet/symnet.h"

namespace symnet {
namespace {

std::vector<std::string> LRNPrimitives(DType dtype) {
  Symbol net = Symbol::Create("LRN", "lrn", {{"nsize", "5"}}, {Symbol::Variable("data")});
  ClearDnnlPrimitivesCreated();
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{2, 16, 13, 13}}},
                                  {{"data", dtype}}, {}, GradReq::kWrite);
  exe->Forward(true);
  exe->Backward({NDArray(Shape{2, 16, 13, 13}, Device::CPU(), dtype)});
  return DnnlPrimitivesCreated();
}

void ExpectRealKernels(DType dtype) {
  const std::vector<std::string> prims = LRNPrimitives(dtype);
  std::string all;
  for (const auto& p : prims) all += "  " + p + "\n";
  bool fwd = false, bwd = false;
  for (const auto& p : prims) {
    fwd |= p.rfind("lrn forward:", 0) == 0;
    bwd |= p.rfind("lrn backward:", 0) == 0;
    EXPECT_EQ(p.find("ref"), std::string::npos)
        << "reference kernel at ISA " << DnnlCpuIsa() << ": " << p << "\n"
        << all;
  }
  EXPECT_TRUE(fwd && bwd) << "LRN did not create its oneDNN primitives:\n" << all;
  std::printf("ISA %s:\n%s", DnnlCpuIsa().c_str(), all.c_str());
}

TEST(DnnlLRN, Float32UsesNoReferenceKernel) { ExpectRealKernels(DType::kFloat32); }

TEST(DnnlLRN, NativeBFloat16UsesNoReferenceKernel) {
  if (!DnnlNativeBF16()) {
    // the wording CI's skip policy accepts (the CPU lacks a feature), as the other oneDNN tests
    GTEST_SKIP() << "CPU lacks AVX512_CORE_BF16 (no native bfloat16 at ISA " << DnnlCpuIsa() << ")";
  }
  ExpectRealKernels(DType::kBFloat16);
}

}  // namespace
}  // namespace symnet
