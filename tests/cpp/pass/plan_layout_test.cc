/*! \brief PlanLayout's targets: oneDNN's formats on the CPU, NHWC for 16-bit graphs on GPUs. */
#include <gtest/gtest.h>

#include "../test_util.h"

namespace symnet {
namespace {

/*! \brief conv -> BatchNorm -> relu -> max pooling -> FullyConnected, `channels` wide. */
struct SmallCNN {
  Symbol conv, pool, net;
  explicit SmallCNN(int channels) {
    Symbol data = Symbol::Variable("data");
    conv = Operator("Convolution").SetParam("kernel", "(3, 3)").SetParam("pad", "(1, 1)")
               .SetParam("num_filter", channels).SetInput("data", data).CreateSymbol("conv");
    Symbol bn = Operator("BatchNorm").SetInput("data", conv).CreateSymbol("bn");
    Symbol act = op::Activation(bn, "relu", "relu");
    pool = Operator("Pooling").SetParam("kernel", "(2, 2)").SetParam("stride", "(2, 2)")
               .SetInput("data", act).CreateSymbol("pool");
    net = op::FullyConnected(pool, 10, "fc");
  }
};

/*! \brief The layouts PlanLayout picks for the conv and pooling outputs. */
std::pair<Layout, Layout> Plan(const SmallCNN& m, DType t, LayoutTarget target) {
  IndexedGraph g(m.net.outputs);
  std::vector<Shape> shapes(g.num_entries());
  std::vector<DType> types(g.num_entries(), DType::kUnknown);
  std::vector<bool> pinned(g.num_entries(), false);
  for (uint32_t nid : g.input_nodes()) {
    const uint32_t e = g.entry_id(nid, 0);
    pinned[e] = true;
    if (g.node(nid).attrs.name == "data") {
      shapes[e] = Shape{2, 3, 8, 8};
      types[e] = t;
    }
  }
  pinned[g.entry_id(g.outputs()[0])] = true;
  EXPECT_EQ(InferShapes(g, &shapes), 0u);
  EXPECT_EQ(InferTypes(g, &types), 0u);
  const std::vector<Layout> l = PlanLayout(g, shapes, types, pinned, target);
  return {l[g.entry_id(m.conv.outputs[0])], l[g.entry_id(m.pool.outputs[0])]};
}

TEST(PlanLayout, CPUBlocksSixteenChannelMultiplesAndGoesNHWCOtherwise) {
  EXPECT_EQ(Plan(SmallCNN(16), DType::kFloat32, LayoutTarget::kCPU).first, Layout::kBlocked16);
  EXPECT_EQ(Plan(SmallCNN(8), DType::kFloat32, LayoutTarget::kCPU).first, Layout::kChannelsLast);
  EXPECT_EQ(Plan(SmallCNN(16), DType::kBFloat16, LayoutTarget::kCPU).second, Layout::kBlocked16);
}

TEST(PlanLayout, GPUGoesNHWCForSixteenBitGraphsOnly) {
  for (DType t : {DType::kFloat16, DType::kBFloat16}) {
    const auto l = Plan(SmallCNN(16), t, LayoutTarget::kGPU);
    EXPECT_EQ(l.first, Layout::kChannelsLast) << t;  // never nChw16c on a GPU
    EXPECT_EQ(l.second, Layout::kChannelsLast) << t;
  }
  // float32 (and float64) graphs keep the default layout on a GPU
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    const auto l = Plan(SmallCNN(16), t, LayoutTarget::kGPU);
    EXPECT_EQ(l.first, Layout::kDefault) << t;
    EXPECT_EQ(l.second, Layout::kDefault) << t;
  }
}

}  // namespace
}  // namespace symnet
