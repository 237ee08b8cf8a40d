/*!
 * \brief LayerNorm's oneDNN primitives are real implementations at this CPU's ISA (a name with
 *  "ref" would mean oneDNN's reference loops, far slower than the op's own OpenMP fallback).
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symnet/symnet.h"

namespace symnet {
namespace {

std::vector<std::string> LayerNormPrimitives(DType dtype) {
  Symbol net = Symbol::Create("LayerNorm", "ln", {}, {Symbol::Variable("data")});
  ClearDnnlPrimitivesCreated();
  const Shape shape{4, 6, 64};
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", shape}}, {{"data", dtype}}, {},
                                  GradReq::kWrite);
  exe->Forward(true);
  exe->Backward({NDArray(shape, Device::CPU(), dtype)});
  return DnnlPrimitivesCreated();
}

/*! \brief The forward and backward primitives exist and none is a reference kernel. */
void ExpectRealKernels(DType dtype) {
  const std::vector<std::string> prims = LayerNormPrimitives(dtype);
  std::string all;
  for (const auto& p : prims) all += "  " + p + "\n";
  bool fwd = false, bwd = false;
  for (const auto& p : prims) {
    fwd |= p.rfind("layer normalization forward:", 0) == 0;
    bwd |= p.rfind("layer normalization backward:", 0) == 0;
    EXPECT_EQ(p.find("ref"), std::string::npos)
        << "reference kernel at ISA " << DnnlCpuIsa() << ": " << p << "\n"
        << all;
  }
  EXPECT_TRUE(fwd && bwd) << "LayerNorm did not create its oneDNN primitives:\n" << all;
  std::printf("ISA %s:\n%s", DnnlCpuIsa().c_str(), all.c_str());
}

TEST(DnnlLayerNorm, Float32UsesNoReferenceKernel) { ExpectRealKernels(DType::kFloat32); }

TEST(DnnlLayerNorm, BFloat16UsesNoReferenceKernel) {
  if (!DnnlNativeBF16()) {
    // the wording CI's skip policy accepts (the CPU lacks a feature), as the other oneDNN tests
    GTEST_SKIP() << "CPU lacks AVX512_CORE_BF16 (no native bfloat16 at ISA " << DnnlCpuIsa() << ")";
  }
  // gamma and beta are bfloat16 too, which oneDNN 2.6 does not take: the op stages bfloat16 data
  // in float32, so even here the primitives are float32 ones
  ExpectRealKernels(DType::kBFloat16);
}

}  // namespace
}  // namespace symnet
