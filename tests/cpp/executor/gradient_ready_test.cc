/*! \brief The executor's gradient-ready callback (what distributed reducers hook into) and the
 *  dist collectives in a job of one rank (a process not started by mpirun). */
#include <gtest/gtest.h>

#include <set>

#include "../test_util.h"
#include "symnet/collectives.h"

namespace symnet {
namespace {

TEST(GradientReady, EachGradientIsReportedOnceWhenFinalInBackwardOrder) {
  auto net = test::SmallMLP(8, 3);
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{5, 4}}}, {},
                                  {{"data", GradReq::kNull}, {"softmax_label", GradReq::kNull}});
  const auto names = net.ListArguments();
  for (size_t i = 0; i < names.size(); ++i) {
    NDArray a = exe->arg_arrays()[i];
    if (names[i] != "softmax_label") test::FillRandom(&a, 3 + static_cast<uint32_t>(i), 0.5);
  }
  std::vector<size_t> seen;
  std::map<size_t, std::vector<double>> at_callback;
  exe->SetGradientReadyCallback([&](size_t arg) {
    seen.push_back(arg);
    at_callback[arg] = test::ToVector(exe->grad_arrays()[arg]);
  });
  exe->Forward(true);
  exe->Backward();
  std::set<size_t> trained;
  for (size_t i = 0; i < names.size(); ++i)
    if (exe->grad_reqs()[i] != GradReq::kNull) trained.insert(i);
  EXPECT_EQ(std::set<size_t>(seen.begin(), seen.end()), trained);
  EXPECT_EQ(seen.size(), trained.size()) << "a gradient was reported twice";
  EXPECT_EQ(seen, exe->GradientReadyOrder());
  for (size_t arg : seen)  // final when reported: nothing wrote it afterwards
    EXPECT_EQ(at_callback[arg], test::ToVector(exe->grad_arrays()[arg])) << names[arg];
  // backward runs from the loss: the last layer's weight is final before the first layer's
  auto pos = [&](const std::string& n) {
    for (size_t k = 0; k < seen.size(); ++k)
      if (names[seen[k]] == n) return k;
    return seen.size();
  };
  EXPECT_LT(pos("fc2_weight"), pos("fc1_weight"));
  exe->SetGradientReadyCallback(nullptr);
  seen.clear();
  exe->Backward();
  EXPECT_TRUE(seen.empty());
}

TEST(DistOneRank, CollectivesOfOneRankLeaveTheDataAndTheReducerRuns) {
  dist::Init();
  ASSERT_EQ(dist::Size(), 1);
  EXPECT_EQ(dist::Rank(), 0);
  NDArray a = NDArray::Full(Shape{3}, 2.5);
  dist::AllReduceSum({a});
  dist::Broadcast({a}, 0);
  EXPECT_EQ(test::ToVector(a), (std::vector<double>{2.5, 2.5, 2.5}));
  EXPECT_EQ(dist::AllGather(a).shape(), (Shape{1, 3}));
  EXPECT_TRUE(dist::Any(true));
  EXPECT_THROW(dist::Broadcast({a}, 1), Error);  // no rank 1 in a job of one
  NDArray g1 = NDArray::Full(Shape{100}, 1.0), g2 = NDArray::Full(Shape{7}, 2.0);
  dist::GradientReducer reducer({g1, g2}, {1, 0}, 64);
  EXPECT_EQ(reducer.num_buckets(), 2u);
  EXPECT_EQ(reducer.bucket(0), std::vector<size_t>{1});
  reducer.MarkReady(1);
  reducer.MarkReady(0);
  reducer.Wait();
  EXPECT_EQ(test::ToVector(g2)[6], 2.0);
}

}  // namespace
}  // namespace symnet
