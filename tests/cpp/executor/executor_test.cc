/*! \brief The executor from C++: training steps, grad_req, in-place plans, memory report. */
#include <gtest/gtest.h>

#include "../test_util.h"

namespace symnet {
namespace {

TEST(Executor, MLPTrainingReducesLoss) {
  auto net = test::SmallMLP(32, 3);
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{30, 4}}});
  const auto names = net.ListArguments();
  // a separable toy problem: the class is the index of the largest of the first 3 features
  NDArray data = exe->arg_arrays()[0];
  test::FillRandom(&data, 1);
  auto x = test::ToVector(data);
  std::vector<double> labels(30);
  for (int i = 0; i < 30; ++i) {
    int best = 0;
    for (int c = 1; c < 3; ++c)
      if (x[i * 4 + c] > x[i * 4 + best]) best = c;
    labels[i] = best;
  }
  exe->arg_arrays().back().CopyFromBuffer(labels.data(), DType::kFloat64);
  for (size_t i = 1; i + 1 < names.size(); ++i) {
    NDArray w = exe->arg_arrays()[i];
    test::FillRandom(&w, 10 + static_cast<uint32_t>(i), 0.3);
  }
  auto loss = [&]() {
    auto p = test::ToVector(exe->outputs()[0]);
    double l = 0;
    for (int i = 0; i < 30; ++i) l -= std::log(p[i * 3 + static_cast<int>(labels[i])] + 1e-12);
    return l / 30;
  };
  exe->Forward(false);
  const double before = loss();
  for (int step = 0; step < 200; ++step) {
    exe->Forward(true);
    exe->Backward();
    for (size_t i = 1; i + 1 < names.size(); ++i) {
      Invoke("sgd_update", {{"lr", "0.5"}, {"rescale_grad", "0.0333333"}},
             {exe->arg_arrays()[i], exe->grad_arrays()[i]}, {exe->arg_arrays()[i]});
    }
  }
  exe->Forward(false);
  EXPECT_LT(loss(), 0.3 * before);
}

TEST(Executor, GradReqNullAndAdd) {
  auto net = test::SmallMLP(8, 3);
  std::map<std::string, GradReq> reqs{
      {"data", GradReq::kNull}, {"softmax_label", GradReq::kNull}, {"fc1_bias", GradReq::kAdd}};
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{4, 5}}}, {}, reqs);
  EXPECT_TRUE(exe->grad_arrays()[0].is_none());
  for (size_t i = 0; i < exe->arg_arrays().size(); ++i) {
    NDArray a = exe->arg_arrays()[i];
    test::FillRandom(&a, static_cast<uint32_t>(i));
  }
  NDArray label = exe->arg_arrays().back();
  label.Fill(1);
  exe->Forward(true);
  exe->Backward();
  const auto once = test::ToVector(exe->grad_arrays()[2]);
  exe->Forward(true);
  exe->Backward();
  const auto twice = test::ToVector(exe->grad_arrays()[2]);
  for (size_t j = 0; j < once.size(); ++j) EXPECT_NEAR(twice[j], 2 * once[j], 1e-5);
  EXPECT_NE(exe->DebugString().find("(add)"), std::string::npos);
}

TEST(Executor, MemoryReportForBatch256) {
  auto net = test::SmallMLP(128, 10);
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{256, 64}}});
  const MemoryReport& r = exe->memory_report();
  EXPECT_LT(r.arena_bytes, r.no_sharing_bytes);
  EXPECT_LE(r.arena_bytes, r.lower_bound_bytes * 11 / 10);
  EXPECT_GT(r.external_bytes, 0u);
}

TEST(Executor, BindChecksArrays) {
  auto net = test::SmallMLP(8, 3);
  std::vector<NDArray> args{NDArray::Zeros({4, 5})};
  EXPECT_THROW(Executor::Bind(net, Device::CPU(), args, {}, {}, {}), Error);
}

TEST(Executor, FiniteDifferenceOfLossFreeGraph) {
  auto data = Symbol::Variable("data");
  auto y = op::log_softmax(op::FullyConnected(op::Activation(data, "sigmoid", "s"), 5, "fc"));
  test::CheckGradient(y, {{"data", Shape{3, 4}}}, {"data", "fc_weight", "fc_bias"});
}

}  // namespace
}  // namespace symnet
