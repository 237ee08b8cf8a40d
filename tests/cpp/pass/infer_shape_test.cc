/*! \brief Shape and type inference: both directions, partial results, precise errors. */
#include <gtest/gtest.h>

#include "../test_util.h"

namespace symnet {
namespace {

TEST(InferShape, MismatchNamesNodeArgumentAndBothShapes) {
  auto data = Symbol::Variable("data");
  auto weight = Symbol::Variable("fc_weight", Shape{10, 63});
  auto fc = Operator("FullyConnected")
                .SetParam("num_hidden", 10)
                .SetInput("data", data)
                .SetInput("weight", weight)
                .CreateSymbol("fc");
  try {
    std::vector<Shape> a, o, x;
    fc.InferShape({{"data", Shape{32, 64}}}, &a, &o, &x);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("node 'fc'"), std::string::npos) << m;
    EXPECT_NE(m.find("FullyConnected"), std::string::npos) << m;
    EXPECT_NE(m.find("'weight'"), std::string::npos) << m;
    EXPECT_NE(m.find("fc_weight"), std::string::npos) << m;
    EXPECT_NE(m.find("(10, 63)"), std::string::npos) << m;
    EXPECT_NE(m.find("(10, 64)"), std::string::npos) << m;
  }
}

TEST(InferShape, BackwardDirectionAndPartial) {
  // the label's shape comes from the data through SoftmaxOutput; the bias from num_hidden
  auto net = test::SmallMLP(16, 4);
  std::vector<Shape> a, o, x;
  EXPECT_FALSE(net.InferShape({}, &a, &o, &x, /*partial=*/true));
  EXPECT_EQ(a[2], Shape{16});  // fc1_bias is known without the data
  EXPECT_THROW(net.InferShape({}, &a, &o, &x, false), Error);
  EXPECT_TRUE(net.InferShape({{"data", Shape{8, 5}}}, &a, &o, &x));
  EXPECT_EQ(a.back(), Shape{8});
  // an elementwise op fills an unknown input from its sibling
  auto s = Symbol::Variable("p") + Symbol::Variable("q");
  ASSERT_TRUE(s.InferShape({{"q", Shape{3, 2}}}, &a, &o, &x));
  EXPECT_EQ(a[0], (Shape{3, 2}));
}

TEST(InferType, PropagatesAndChecks) {
  auto net = test::SmallMLP();
  std::vector<DType> a, o, x;
  ASSERT_TRUE(net.InferType({{"data", DType::kFloat16}}, &a, &o, &x));
  for (DType t : a) EXPECT_EQ(t, DType::kFloat16);
  auto c = op::Cast(Symbol::Variable("v"), DType::kFloat64, "c");
  ASSERT_TRUE(c.InferType({{"v", DType::kFloat32}}, &a, &o, &x));
  EXPECT_EQ(o[0], DType::kFloat64);
  auto bad = Symbol::Variable("m") + Symbol::Variable("n");
  EXPECT_THROW(bad.InferType({{"m", DType::kFloat32}, {"n", DType::kFloat16}}, &a, &o, &x), Error);
}

}  // namespace
}  // namespace symnet
