/*! \brief The executor from C++: training steps, grad_req, in-place plans, memory report. */
#include <gtest/gtest.h>

#include <map>
#include <thread>

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

TEST(Executor, RunsBumpTheVersionsOfTheArraysTheyWrite) {
  // what kernels cache from an array (reordered weights) must see every write an executor makes
  auto net = test::SmallMLP(8, 3);
  std::map<std::string, GradReq> reqs{{"data", GradReq::kNull}, {"softmax_label", GradReq::kNull}};
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{4, 5}}}, {}, reqs);
  for (size_t i = 0; i < exe->arg_arrays().size(); ++i) {
    NDArray a = exe->arg_arrays()[i];
    test::FillRandom(&a, static_cast<uint32_t>(i));
  }
  exe->arg_arrays().back().Fill(1);  // a class index
  auto stamps = [](const std::vector<NDArray>& v) {
    std::vector<uint64_t> s;
    for (const auto& a : v) s.push_back(a.is_none() ? 0 : a.version()->stamp());
    return s;
  };
  const auto args = stamps(exe->arg_arrays()), grads = stamps(exe->grad_arrays());
  const uint64_t out = exe->outputs()[0].version()->stamp();
  exe->Forward(true);
  EXPECT_EQ(stamps(exe->arg_arrays()), args);  // read, not written
  EXPECT_NE(exe->outputs()[0].version()->stamp(), out);
  exe->Backward();
  const auto after = stamps(exe->grad_arrays());
  for (size_t i = 0; i < grads.size(); ++i)
    if (!exe->grad_arrays()[i].is_none()) EXPECT_NE(after[i], grads[i]) << "gradient " << i;
  EXPECT_EQ(stamps(exe->arg_arrays()), args);
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

// two executors of one network, bound separately, run forward/backward at the same time in two
// threads: each gets exactly the results it gets alone (no shared scratch state between them)
TEST(Executor, TwoExecutorsRunConcurrentlyWithCorrectResults) {
  auto net = test::SmallMLP(64, 5);
  auto run = [&](Executor* exe, uint32_t seed, int steps) {
    for (size_t i = 0; i < exe->arg_arrays().size(); ++i) {
      NDArray a = exe->arg_arrays()[i];
      if (i + 1 == exe->arg_arrays().size()) {
        std::vector<double> labels(a.Size());
        for (size_t k = 0; k < labels.size(); ++k) labels[k] = static_cast<double>((k + seed) % 5);
        a.CopyFromBuffer(labels.data(), DType::kFloat64);
      } else {
        test::FillRandom(&a, seed + static_cast<uint32_t>(i), 0.5);
      }
    }
    for (int s = 0; s < steps; ++s) {
      exe->Forward(true);
      exe->Backward();
    }
    std::vector<double> out = test::ToVector(exe->outputs()[0]);
    for (const auto& g : exe->grad_arrays())
      if (!g.is_none()) {
        auto v = test::ToVector(g);
        out.insert(out.end(), v.begin(), v.end());
      }
    return out;
  };
  const std::map<std::string, Shape> shapes{{"data", Shape{48, 32}}};
  auto a = Executor::SimpleBind(net, Device::CPU(), shapes);
  auto b = Executor::SimpleBind(net, Device::CPU(), shapes);
  const auto alone_a = run(a.get(), 1, 3), alone_b = run(b.get(), 2, 3);
  for (int round = 0; round < 20; ++round) {
    std::vector<double> got_a, got_b;
    std::thread ta([&] { got_a = run(a.get(), 1, 3); });
    std::thread tb([&] { got_b = run(b.get(), 2, 3); });
    ta.join();
    tb.join();
    ASSERT_EQ(got_a, alone_a) << "round " << round;
    ASSERT_EQ(got_b, alone_b) << "round " << round;
  }
}

// repeated bind, step and unbind of an executor must not grow resident memory
TEST(Executor, RepeatedBindAndUnbindDoesNotGrowMemory) {
  auto net = test::SmallMLP(32, 4);
  double base = 0;
  for (int i = 0; i < 300; ++i) {
    if (i == 30) base = test::ResidentMB();
    auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{16, 8}}});
    exe->Forward(true);
    exe->Backward();
  }
  const double grown = test::ResidentMB() - base;
  std::printf("bind/unbind: 270 cycles after warm-up grew resident memory by %.2f MB\n", grown);
  EXPECT_LT(grown, 4.0);
}

}  // namespace
}  // namespace symnet
