/*! \brief The C++ symbol API: typed helpers, the generic builder, listing, JSON round trips. */
#include <gtest/gtest.h>

#include "../test_util.h"

namespace symnet {
namespace {

TEST(Symbol, ReadsLikePython) {
  auto data = Symbol::Variable("data");
  auto fc1 = op::FullyConnected(data, /*num_hidden=*/128, "fc1");
  auto act = op::Activation(fc1, "relu", "relu1");
  auto out = op::SoftmaxOutput(op::FullyConnected(act, 10, "fc2"), "softmax");
  EXPECT_EQ(out.ListArguments(),
            (std::vector<std::string>{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                                      "softmax_label"}));
  EXPECT_EQ(out.ListOutputs(), std::vector<std::string>{"softmax_output"});
  std::vector<Shape> args, outs, aux;
  ASSERT_TRUE(out.InferShape({{"data", Shape{32, 64}}}, &args, &outs, &aux));
  EXPECT_EQ(args[1], (Shape{128, 64}));
  EXPECT_EQ(outs[0], (Shape{32, 10}));
}

TEST(Symbol, GenericBuilder) {
  auto x = Symbol::Variable("x");
  auto fc = Operator("FullyConnected")
                .SetParam("num_hidden", 8)
                .SetParam("no_bias", true)
                .SetInput("data", x)
                .CreateSymbol("fc");
  EXPECT_EQ(fc.ListArguments(), (std::vector<std::string>{"x", "fc_weight"}));
  EXPECT_EQ(fc.Attr("no_bias"), "True");
  auto r = Operator("Reshape").SetParam("shape", Shape{-1, 4}).PushInput(fc).CreateSymbol("r");
  EXPECT_EQ(r.Attr("shape"), "(-1, 4)");
}

TEST(Symbol, AutoNamesAndArithmetic) {
  NameManager::Reset();
  auto a = Symbol::Variable("a"), b = Symbol::Variable("b");
  auto c = (a + b) * 2.0 - a / b;
  EXPECT_EQ(c.name(), "_minus0");
  auto internals = c.GetInternals().ListOutputs();
  EXPECT_EQ(internals.front(), "a");
  EXPECT_EQ(internals.back(), "_minus0_output");
}

TEST(Symbol, JsonRoundTrip) {
  auto net = test::SmallMLP();
  const std::string json = net.ToJSON();
  auto back = Symbol::FromJSON(json);
  EXPECT_EQ(back.ToJSON(), json);
  EXPECT_EQ(back.ListArguments(), net.ListArguments());
  EXPECT_EQ(back.AttrDict(), net.AttrDict());
  EXPECT_NE(json.find("\"mxnet_version\": [\"int\", 10901]"), std::string::npos);
}

TEST(Symbol, GetItemAndChildren) {
  auto net = test::SmallMLP();
  auto internals = net.GetInternals();
  auto fc1 = internals["fc1_output"];
  EXPECT_EQ(fc1.name(), "fc1");
  EXPECT_EQ(fc1.GetChildren().NumOutputs(), 3u);
  EXPECT_THROW(internals["nope"], Error);
  auto g = Symbol::Group({fc1, net});
  EXPECT_EQ(g.NumOutputs(), 2u);
  EXPECT_EQ(g[1].name(), "softmax");
}

}  // namespace
}  // namespace symnet
