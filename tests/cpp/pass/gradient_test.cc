/*! \brief The gradient pass: summing of reused entries, pruning, zeros for unreachable inputs. */
#include <gtest/gtest.h>

#include "../test_util.h"

namespace symnet {
namespace {

TEST(Gradient, ReusedEntrySumsContributions) {
  auto x = Symbol::Variable("x");
  auto y = x * x;
  auto hg = Node::Variable("hg");
  auto grads = Gradient(y.outputs, {x.outputs[0].node}, {NodeEntry{hg, 0, 0}});
  ASSERT_EQ(grads.size(), 1u);
  // x*x is one node using x twice: both outputs of its _backward_mul flow to x, summed by add_n
  const NodePtr& sum = grads[0].node;
  ASSERT_EQ(sum->op()->name, "add_n");
  ASSERT_EQ(sum->inputs.size(), 2u);
  EXPECT_EQ(sum->inputs[0].node, sum->inputs[1].node);
  EXPECT_EQ(sum->inputs[0].node->op()->name, "_backward_mul");
  EXPECT_NE(sum->inputs[0].index, sum->inputs[1].index);
}

TEST(Gradient, UnreachableInputGetsZeros) {
  auto x = Symbol::Variable("x"), w = Symbol::Variable("w");
  auto y = op::BlockGrad(w) + x;
  auto hg = Node::Variable("hg");
  auto grads = Gradient(y.outputs, {x.outputs[0].node, w.outputs[0].node}, {NodeEntry{hg, 0, 0}});
  EXPECT_EQ(grads[1].node->op()->name, "zeros_like");
  // x's gradient is the head gradient itself: copied so the caller owns its array
  EXPECT_EQ(grads[0].node->op()->name, "_copy");
}

TEST(Gradient, FiniteDifferencesThroughAnMLP) {
  auto data = Symbol::Variable("data");
  auto h = op::Activation(op::FullyConnected(data, 6, "fc1"), "tanh", "t1");
  auto y = op::FullyConnected(h, 3, "fc2") * h.GetInternals()["fc1_output"].GetChildren()[0];
  // y uses data twice (directly and through the layers): gradients must add up
  auto out = op::sum(op::FullyConnected(y, 2, "fc3"), Shape{1});
  test::CheckGradient(out, {{"data", Shape{4, 3}}},
                      {"data", "fc1_weight", "fc2_bias", "fc3_weight"});
}

}  // namespace
}  // namespace symnet
