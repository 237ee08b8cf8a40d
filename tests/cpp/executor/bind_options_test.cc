/*!
 * \brief Bind options: validated, honoured by the layout plan, carried by the executor; the GPU
 *  convolution's workspace limit as a plain function of its attributes and the bind's cap.
 */
#include <gtest/gtest.h>

#include "../test_util.h"
#include "operators/nn/convolution.h"

namespace symnet {
namespace {

Symbol Conv(const Symbol& x, const std::string& name) {
  Operator o("Convolution");
  o.SetParam("kernel", Shape{3, 3}).SetParam("pad", Shape{1, 1}).SetParam("num_filter", 16);
  return o.SetInput("data", x).CreateSymbol(name);
}

/*! \brief Two convolutions: the activations between them form a layout region. */
Symbol ConvNet() {
  Symbol a = op::Activation(Conv(Symbol::Variable("data"), "c1"), "relu", "a1");
  return op::FullyConnected(Conv(a, "c2"), 4, "fc");
}

std::string BoundDebug(const std::string& layout) {
  BindOptions o;
  o.layout = layout;
  auto exe = Executor::SimpleBind(ConvNet(), Device::CPU(), {{"data", Shape{2, 16, 6, 6}}}, {}, {},
                                  GradReq::kWrite, o);
  EXPECT_EQ(exe->options().layout, layout);
  return exe->DebugString();
}

TEST(BindOptions, LayoutPlanFollowsTheOption) {
  const std::string off = BoundDebug("off"), nhwc = BoundDebug("NHWC"), autop = BoundDebug("auto");
  EXPECT_EQ(off.find("_convert_layout"), std::string::npos) << off;
  EXPECT_NE(nhwc.find("(NHWC)"), std::string::npos) << nhwc;
  EXPECT_EQ(nhwc.find("(nChw"), std::string::npos) << nhwc;
  EXPECT_NE(autop.find("_convert_layout"), std::string::npos) << autop;
}

TEST(BindOptions, BadValuesAreNamed) {
  BindOptions o;
  o.layout = "NCHWc";
  try {
    Executor::SimpleBind(ConvNet(), Device::CPU(), {{"data", Shape{2, 16, 6, 6}}}, {}, {},
                         GradReq::kWrite, o);
    FAIL() << "bound with layout NCHWc";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layout='NCHWc'"), std::string::npos) << e.what();
  }
}

TEST(BindOptions, ConvWorkspaceLimitIsTheAttributeWithinTheCap) {
  auto param = [](const std::map<std::string, std::string>& kv) {
    ops::ConvolutionParam p;
    std::map<std::string, std::string> all{{"kernel", "(3, 3)"}, {"num_filter", "8"}};
    all.insert(kv.begin(), kv.end());
    p.Init(all);
    return p;
  };
  constexpr size_t MiB = size_t(1) << 20;
  EXPECT_EQ(ops::ConvWorkspaceLimit(param({}), 1024 * MiB), 1024 * MiB);  // MXNet's default 1024
  EXPECT_EQ(ops::ConvWorkspaceLimit(param({{"workspace", "256"}}), 1024 * MiB), 256 * MiB);
  EXPECT_EQ(ops::ConvWorkspaceLimit(param({{"workspace", "256"}}), 64 * MiB), 64 * MiB);
  EXPECT_EQ(ops::ConvWorkspaceLimit(
                param({{"workspace", "256"}, {"cudnn_tune", "limited_workspace"}}), 4096 * MiB),
            256 * MiB);
  EXPECT_EQ(
      ops::ConvWorkspaceLimit(param({{"workspace", "256"}, {"cudnn_tune", "fastest"}}), 4096 * MiB),
      4096 * MiB);
  EXPECT_EQ(ops::ConvWorkspaceLimit(param({{"cudnn_tune", "off"}}), 2048 * MiB), 1024 * MiB);
}

}  // namespace
}  // namespace symnet
