/*!
 * \brief PlanLayout's targets: on the CPU the layout each region's ops ask for (oneDNN's choice
 *  on this CPU, never a constant), NHWC for 16-bit graphs on GPUs.
 */
#include <gtest/gtest.h>

#include "../test_util.h"
#include "symnet/runtime.h"

namespace symnet {
namespace {

/*! \brief conv -> BatchNorm -> relu -> max pooling -> FullyConnected, `channels` wide. */
struct SmallCNN {
  Symbol conv, pool, net;
  explicit SmallCNN(int channels) {
    Symbol data = Symbol::Variable("data");
    conv = Operator("Convolution")
               .SetParam("kernel", "(3, 3)")
               .SetParam("pad", "(1, 1)")
               .SetParam("num_filter", channels)
               .SetInput("data", data)
               .CreateSymbol("conv");
    Symbol bn = Operator("BatchNorm").SetInput("data", conv).CreateSymbol("bn");
    Symbol act = op::Activation(bn, "relu", "relu");
    pool = Operator("Pooling")
               .SetParam("kernel", "(2, 2)")
               .SetParam("stride", "(2, 2)")
               .SetInput("data", act)
               .CreateSymbol("pool");
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

/*! \brief What Convolution asks for (FLayoutPreference) for SmallCNN's conv output in dtype t. */
Layout ConvAsks(const SmallCNN& m, DType t) {
  const Node& conv = *m.conv.outputs[0].node;
  const auto* f = conv.op()->attr<FLayoutPreference>("FLayoutPreference");
  EXPECT_NE(f, nullptr);
  const std::vector<Layout> asked = (*f)(conv.attrs, {Shape{2, 3, 8, 8}, Shape{}}, {t, t});
  EXPECT_EQ(asked.size(), 2u);
  return asked.at(1);
}

TEST(PlanLayout, CPUFollowsWhatOneDNNPicksOnThisCPU) {
  for (DType t : {DType::kFloat32, DType::kBFloat16}) {
    const SmallCNN m(16);
    const Layout asked = ConvAsks(m, t);
    EXPECT_NE(asked, Layout::kDefault) << t;
    const auto l = Plan(m, t, LayoutTarget::kCPU);
    EXPECT_EQ(l.first, asked) << t << " at ISA " << DnnlCpuIsa();
    EXPECT_EQ(l.second, asked) << t;  // the whole region: BatchNorm, relu, pooling
  }
  // oneDNN 2.6 has no AVX2 kernel for nChw16c: AVX2 regions must be nChw8c (or channels-last)
  const Layout l = Plan(SmallCNN(16), DType::kFloat32, LayoutTarget::kCPU).first;
  if (DnnlCpuIsa() == "avx2") EXPECT_NE(l, Layout::kBlocked16);
  if (DnnlCpuIsa().rfind("avx512", 0) == 0) EXPECT_EQ(l, Layout::kBlocked16);
  // 12 channels fit no block of 8 or 16: channels-last
  EXPECT_EQ(Plan(SmallCNN(12), DType::kFloat32, LayoutTarget::kCPU).first, Layout::kChannelsLast);
}

/*! \brief Votes: n16 for nChw16c, n8 for nChw8c, nhwc for channels-last. */
LayoutVotes Votes(int n16, int n8, int nhwc) {
  LayoutVotes v{};
  v[static_cast<int>(Layout::kBlocked16)] = n16;
  v[static_cast<int>(Layout::kBlocked8)] = n8;
  v[static_cast<int>(Layout::kChannelsLast)] = nhwc;
  return v;
}

TEST(PlanLayout, ARegionTakesTheLayoutMostOfItsOpsAskForThatItsChannelsAllow) {
  EXPECT_EQ(ChooseRegionLayout(Votes(2, 0, 0), 32), Layout::kBlocked16);
  EXPECT_EQ(ChooseRegionLayout(Votes(1, 2, 0), 32), Layout::kBlocked8);
  EXPECT_EQ(ChooseRegionLayout(Votes(0, 1, 2), 32), Layout::kChannelsLast);
  // channels in multiples of 8 only: no nChw16c; the votes for nChw8c win even when outnumbered
  EXPECT_EQ(ChooseRegionLayout(Votes(2, 1, 0), 24), Layout::kBlocked8);
  // channels that fit no block: channels-last, which every ISA level runs
  EXPECT_EQ(ChooseRegionLayout(Votes(1, 1, 0), 20), Layout::kChannelsLast);
  // no votes (an op that prefers without saying what): channels-last
  EXPECT_EQ(ChooseRegionLayout(Votes(0, 0, 0), 64), Layout::kChannelsLast);
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
