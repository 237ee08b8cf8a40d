/*!
 * \brief No oneDNN reference kernel on a hot path: every primitive that a whole ResNet-50
 *  (3-channel stem, 1x1 stride-2 projections, every block) creates in training and inference,
 *  in float32 and, where the CPU has native bfloat16, under AMP bfloat16, is one of oneDNN's
 *  real implementations. oneDNN's reference kernels (any name containing "ref") are plain loops,
 *  seconds per convolution: one of them made a training step take minutes on AVX2 CPUs when the
 *  layout plan hard-coded the AVX-512 blocking.
 *
 *  CTest runs this once uncapped and once per ISA level with ONEDNN_MAX_CPU_ISA set
 *  (tests/cpp/CMakeLists.txt), so a large CPU also checks the smaller levels; a level above
 *  the CPU's own reports skipped.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "symnet/amp.h"
#include "symnet/symnet.h"

namespace symnet {
namespace {

/*! \brief Skips when this run is capped to a level (SYMNET_TEST_ISA) that the CPU does not reach.
 */
bool LevelReached(std::string* why) {
  const char* want = std::getenv("SYMNET_TEST_ISA");
  if (!want) return true;  // uncapped: the CPU's own level
  std::string w(want);
  std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
  *why = std::string("CPU lacks ") + want + " (oneDNN runs " + DnnlCpuIsa() + " here)";
  return DnnlCpuIsa() == w;
}

/*! \brief The primitives created by binding ResNet-50 and running one step (or inference). */
std::vector<std::string> ResNet50Primitives(bool amp_bf16, bool train, bool fuse) {
  models::ResNetOptions opt;  // ResNet-50 v1.5, 224x224: the 7x7 stem and max pooling
  Symbol net = models::ResNet(opt);
  if (amp_bf16) {
    amp::AmpOptions a;
    a.target = DType::kBFloat16;
    net = amp::ReducePrecision(net, a);
  }
  ClearDnnlPrimitivesCreated();
  BindOptions options = BindOptions::FromEnvironment();
  options.fuse = fuse;  // inference binds fold BatchNorm into the convolutions unless told not to
  // as in training: gradients for the parameters, none for the data and labels
  auto exe = Executor::SimpleBind(net, Device::CPU(),
                                  {{"data", Shape{2, 3, 224, 224}}, {"softmax_label", Shape{2}}},
                                  {}, {{"data", GradReq::kNull}, {"softmax_label", GradReq::kNull}},
                                  train ? GradReq::kWrite : GradReq::kNull, options);
  exe->Forward(train);
  if (train) exe->Backward();
  return DnnlPrimitivesCreated();
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s;
}

/*! \brief Every primitive in `prims` is a real kernel, and each of `kinds` was made. */
void ExpectRealKernels(const std::vector<std::string>& prims, const char* what,
                       const std::vector<const char*>& kinds) {
  const std::string all = Join(prims);
  ASSERT_FALSE(prims.empty()) << "no oneDNN primitive was recorded: the check would prove nothing";
  for (const char* kind : kinds)
    EXPECT_TRUE(std::any_of(prims.begin(), prims.end(),
                            [&](const std::string& p) { return p.rfind(kind, 0) == 0; }))
        << kind << "\n"
        << all;
  for (const auto& p : prims)
    EXPECT_EQ(p.find("ref"), std::string::npos)
        << "reference kernel at ISA " << DnnlCpuIsa() << ": " << p << "\nall primitives:\n"
        << all;
  std::printf("ISA %s, %s: %zu primitives\n%s", DnnlCpuIsa().c_str(), what, prims.size(),
              all.c_str());
}

void ExpectNoReference(bool amp_bf16, bool train, bool fuse = false) {
  const std::vector<std::string> prims = ResNet50Primitives(amp_bf16, train, fuse);
  const std::string all = Join(prims);
  ASSERT_FALSE(prims.empty()) << "no oneDNN primitive was recorded: the check would prove nothing";
  auto has = [&](const std::string& kind) {
    return std::any_of(prims.begin(), prims.end(),
                       [&](const std::string& p) { return p.rfind(kind + ":", 0) == 0; });
  };
  if (fuse && !train) {  // every BatchNorm of ResNet-50 follows a convolution
    EXPECT_TRUE(has("convolution forward (BatchNorm folded)")) << all;
    EXPECT_TRUE(has("reorder (BatchNorm scale into weights)")) << all;
    EXPECT_FALSE(has("batch normalization forward")) << all;
  } else {
    EXPECT_TRUE(has("convolution forward")) << all;
    EXPECT_TRUE(has("batch normalization forward")) << all;
  }
  EXPECT_TRUE(has("matmul")) << all;
  if (train) {
    EXPECT_TRUE(has("convolution backward data")) << all;
    EXPECT_TRUE(has("convolution backward weights")) << all;
    EXPECT_TRUE(has("batch normalization backward")) << all;
    if (fuse) {  // training binds fuse BatchNorm -> ReLU (the blocks' last BatchNorms stay apart)
      EXPECT_TRUE(has("batch normalization forward (ReLU fused)")) << all;
      EXPECT_TRUE(has("batch normalization backward (ReLU fused)")) << all;
    }
  }
  for (const auto& p : prims)
    EXPECT_EQ(p.find("ref"), std::string::npos)
        << "reference kernel at ISA " << DnnlCpuIsa() << ": " << p << "\nall primitives:\n"
        << all;
  std::printf("ISA %s, %s %s%s: %zu primitives\n%s", DnnlCpuIsa().c_str(),
              amp_bf16 ? "AMP bfloat16" : "float32", train ? "training" : "inference",
              fuse ? (train ? " (BatchNorm + ReLU fused)" : " (BatchNorm folded)") : "",
              prims.size(), all.c_str());
}

/*!
 * \brief 3x3 convolutions over 2x2 and 1x1 maps with 128-512 channels, one training step: the
 *  last stages of a ResNet on small images (the model zoo's ResNet-18 on 32x32). On AVX2,
 *  oneDNN 2.6 has no kernel for their weight gradient in nChw8c but its reference loops, 0.55 s
 *  a call (a 2-epoch test took 4 minutes); the convolution then asks for other formats.
 */
TEST(DnnlNoReference, SmallMapsFloat32Training) {
  std::string why;
  if (!LevelReached(&why)) GTEST_SKIP() << why;
  Symbol x = Symbol::Variable("data");
  auto conv = [](const char* name, int filters, int stride, Symbol in) {
    const std::string s = "(" + std::to_string(stride) + ", " + std::to_string(stride) + ")";
    return Symbol::Create("Convolution", name,
                          {{"kernel", "(3, 3)"},
                           {"stride", s},
                           {"pad", "(1, 1)"},
                           {"num_filter", std::to_string(filters)},
                           {"no_bias", "True"}},
                          {in});
  };
  Symbol y = conv("c1", 128, 2, x);  // 4x4 -> 2x2
  y = conv("c2", 256, 1, y);         // 2x2
  y = conv("c3", 512, 2, y);         // 2x2 -> 1x1
  y = conv("c4", 512, 1, y);         // 1x1
  Symbol net = Symbol::Create("MakeLoss", "loss", {}, {y});
  ClearDnnlPrimitivesCreated();
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{4, 64, 4, 4}}}, {}, {},
                                  GradReq::kWrite);
  exe->Forward(true);
  exe->Backward();
  ExpectRealKernels(
      DnnlPrimitivesCreated(), "small maps",
      {"convolution forward:", "convolution backward data:", "convolution backward weights:"});
}

/*!
 * \brief A decoder head that ResNet-50 lacks: Deconvolution (stride 2 with bias; grouped with
 *  adj and a negative right padding in its swapped convolution), bilinear UpSampling (a
 *  depthwise deconvolution), one training step. Deconvolution runs the convolution primitives
 *  with the roles swapped, so its forward is "convolution backward data".
 */
TEST(DnnlNoReference, DeconvolutionHeadFloat32Training) {
  std::string why;
  if (!LevelReached(&why)) GTEST_SKIP() << why;
  Symbol x = Symbol::Variable("data");
  Symbol d1 = Symbol::Create("Deconvolution", "deconv1",
                             {{"kernel", "(4, 4)"},
                              {"stride", "(2, 2)"},
                              {"pad", "(1, 1)"},
                              {"num_filter", "32"},
                              {"no_bias", "False"}},
                             {x});
  Symbol d2 = Symbol::Create("Deconvolution", "deconv2",
                             {{"kernel", "(3, 3)"},
                              {"stride", "(2, 2)"},
                              {"adj", "(1, 1)"},
                              {"num_filter", "16"},
                              {"num_group", "4"}},
                             {d1});
  Symbol up =
      Symbol::Create("UpSampling", "up",
                     {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_filter", "16"}}, {d2});
  Symbol net = Symbol::Create("MakeLoss", "loss", {}, {up});
  ClearDnnlPrimitivesCreated();
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{2, 32, 7, 7}}}, {}, {},
                                  GradReq::kWrite);
  exe->Forward(true);
  exe->Backward();
  ExpectRealKernels(
      DnnlPrimitivesCreated(), "deconvolution head",
      {"convolution backward data:", "convolution forward:", "convolution backward weights:"});
}

TEST(DnnlNoReference, ResNet50Float32Training) {
  std::string why;
  if (!LevelReached(&why)) GTEST_SKIP() << why;
  ExpectNoReference(false, true, true);  // as training binds run: BatchNorm -> ReLU fused
}

TEST(DnnlNoReference, ResNet50Float32Inference) {
  std::string why;
  if (!LevelReached(&why)) GTEST_SKIP() << why;
  ExpectNoReference(false, false, false);
  ExpectNoReference(false, false, true);
}

TEST(DnnlNoReference, ResNet50AmpBFloat16Training) {
  std::string why;
  if (!LevelReached(&why)) GTEST_SKIP() << why;
  if (!DnnlNativeBF16())
    GTEST_SKIP() << "CPU lacks AVX512_CORE_BF16 (no native bfloat16 at ISA " << DnnlCpuIsa() << ")";
  ExpectNoReference(true, true, true);
}

TEST(DnnlNoReference, ResNet50AmpBFloat16Inference) {
  std::string why;
  if (!LevelReached(&why)) GTEST_SKIP() << why;
  if (!DnnlNativeBF16())
    GTEST_SKIP() << "CPU lacks AVX512_CORE_BF16 (no native bfloat16 at ISA " << DnnlCpuIsa() << ")";
  ExpectNoReference(true, false, false);
  ExpectNoReference(true, false, true);
}

}  // namespace
}  // namespace symnet
