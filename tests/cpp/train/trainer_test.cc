/*! \brief The C++ training front end: schedules, loss scaler, initialisation, metrics, Trainer
 *  (learning, AMP, overflow skip) and bit-identical checkpoint resume. */
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "tests/cpp/test_util.h"

namespace symnet {
namespace {

using train::LossScaler;
using train::LRScheduler;

TEST(LRScheduler, WarmupCosineAndMultiFactor) {
  LRScheduler cos;
  cos.kind = LRScheduler::kCosine;
  cos.base_lr = 0.4, cos.max_update = 110, cos.warmup_steps = 10, cos.warmup_begin_lr = 0.0;
  EXPECT_DOUBLE_EQ(cos(5), 0.2);     // half-way through the warmup
  EXPECT_DOUBLE_EQ(cos(10), 0.4);    // cosine starts at base_lr
  EXPECT_NEAR(cos(60), 0.2, 1e-12);  // half of the cosine
  EXPECT_DOUBLE_EQ(cos(110), 0.0);
  LRScheduler step;
  step.kind = LRScheduler::kMultiFactor;
  step.base_lr = 1.0, step.steps = {3, 6}, step.factor = 0.5;
  EXPECT_DOUBLE_EQ(step(3), 1.0);
  EXPECT_DOUBLE_EQ(step(4), 0.5);
  EXPECT_DOUBLE_EQ(step(7), 0.25);
}

TEST(LossScaler, HalvesOnOverflowAndGrowsAfterACleanWindow) {
  LossScaler s;
  s.window = 3;
  s.Update(true);
  EXPECT_EQ(s.scale, 32768.0);
  EXPECT_EQ(s.num_overflows, 1);
  s.Update(false), s.Update(false);
  EXPECT_EQ(s.scale, 32768.0);
  s.Update(false);
  EXPECT_EQ(s.scale, 65536.0);
  s.scale = 1.0;
  s.Update(true);
  EXPECT_EQ(s.scale, 1.0);  // never below min_scale
}

TEST(LossScaler, StaticNeverMovesAndBadSettingsAreRejected) {
  LossScaler s;
  s.dynamic = false, s.scale = 128.0, s.window = 1;
  s.Update(true), s.Update(false), s.Update(false);
  EXPECT_EQ(s.scale, 128.0);
  EXPECT_EQ(s.num_overflows, 1);
  LossScaler bad;
  bad.factor = 1.0;
  EXPECT_THROW(bad.Validate(), Error);
  bad = LossScaler();
  bad.scale = 0.5;  // below min_scale
  EXPECT_THROW(bad.Validate(), Error);
}

TEST(LossScaler, CheckStepSkipsOnInfOrNanAndReturnsTheScaleTheGradientsCarry) {
  LossScaler s;
  s.window = 1;
  NDArray ok(Shape{5}), inf(Shape{3});
  ok.Fill(1.0);
  inf.Fill(std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.CheckStep({ok, NDArray()}), 65536.0);  // clean: the update divides this out
  EXPECT_EQ(s.scale, 131072.0);                      // and the scale grew after its window
  EXPECT_EQ(s.CheckStep({ok, inf}), 0.0);            // overflow: skip
  EXPECT_EQ(s.scale, 65536.0);
  NDArray nan(Shape{2});
  nan.Fill(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(LossScaler::HasOverflow({nan}));
  EXPECT_FALSE(LossScaler::HasOverflow({}));
}

TEST(LossScaler, JsonRoundTripKeepsEveryField) {
  LossScaler s;
  s.scale = 1024.0, s.factor = 4.0, s.window = 7, s.clean_steps = 5, s.num_overflows = 3;
  s.min_scale = 2.0, s.max_scale = 4096.0, s.dynamic = false;
  LossScaler r;
  r.FromJson(s.ToJson());
  EXPECT_EQ(r.ToJson(), s.ToJson());
  EXPECT_FALSE(r.dynamic);
  EXPECT_EQ(r.window, 7);
  LossScaler partial;
  partial.FromJson("{\"loss_scale\": 8}");  // fields it lacks keep their values
  EXPECT_EQ(partial.scale, 8.0);
  EXPECT_EQ(partial.window, 2000);
  EXPECT_THROW(partial.FromJson("{\"loss_scale\": \"big\"}"), Error);
  EXPECT_THROW(partial.FromJson("{\"clean_steps\": 1}"), Error);
}

TEST(OptimizerStates, RoundTripWithTuplesMissingPartsAndAScaler) {
  const std::string path = ::testing::TempDir() + "symnet_states_roundtrip.states";
  const float m0[] = {1, 2, 3}, w1[] = {4, 5};
  train::OptimizerStates st;
  st.num_update = 9;
  st.index_update_count = {{0, 9}, {3, 4}};
  st.states[0].parts = {NDArray::FromBuffer(m0, Shape{3}, DType::kFloat32, DType::kFloat32)};
  st.states[3].parts = {NDArray(),
                        NDArray::FromBuffer(w1, Shape{2}, DType::kFloat32, DType::kFloat32)};
  st.states[3].is_tuple = true;
  st.has_loss_scaler = true;
  st.loss_scaler.scale = 512.0;
  st.loss_scaler.dynamic = false;
  train::SaveOptimizerStates(path, st);
  const train::OptimizerStates r = train::LoadOptimizerStates(path);
  EXPECT_EQ(r.num_update, 9);
  EXPECT_EQ(r.index_update_count, st.index_update_count);
  ASSERT_EQ(r.states.size(), 2u);
  EXPECT_FALSE(r.states.at(0).is_tuple);
  EXPECT_EQ(test::ToVector(r.states.at(0).parts.at(0)), (std::vector<double>{1, 2, 3}));
  EXPECT_TRUE(r.states.at(3).is_tuple);
  EXPECT_TRUE(r.states.at(3).parts.at(0).is_none());
  EXPECT_EQ(test::ToVector(r.states.at(3).parts.at(1)), (std::vector<double>{4, 5}));
  ASSERT_TRUE(r.has_loss_scaler);
  EXPECT_EQ(r.loss_scaler.scale, 512.0);
  EXPECT_FALSE(r.loss_scaler.dynamic);
  std::remove(path.c_str());
}

TEST(OptimizerStates, ABrokenMetaRecordIsAClearError) {
  const std::string path = ::testing::TempDir() + "symnet_states_broken.states";
  auto save_meta = [&](const std::string& text) {
    SaveNDArrays(path,
                 {NDArray::FromBuffer(text.data(), Shape{static_cast<int64_t>(text.size())},
                                      DType::kUint8, DType::kUint8)},
                 {"meta"});
  };
  auto message = [&]() {
    try {
      train::LoadOptimizerStates(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  save_meta("{\"num_update\": 1, \"index_update_count\": {}, \"layout\": {\"0\": [true, false]}}");
  EXPECT_NE(message().find("no array 'state:0:0'"), std::string::npos) << message();
  save_meta("{\"num_update\": 1, \"index_update_count\": {}}");
  EXPECT_NE(message().find("no 'layout'"), std::string::npos) << message();
  save_meta("{\"num_update\": 1, ");
  EXPECT_NE(message().find("not valid JSON"), std::string::npos) << message();
  save_meta("{\"num_update\": 1, \"index_update_count\": {\"x\": 1}, \"layout\": {}}");
  EXPECT_NE(message().find("'x' is not a parameter index"), std::string::npos) << message();
  std::remove(path.c_str());
}

TEST(InitParameter, NameRulesAndHeNormal) {
  std::mt19937_64 rng(1);
  NDArray w(Shape{256, 64, 3, 3}), b(Shape{8}), g(Shape{8}), mv(Shape{8});
  train::InitParameter("conv_weight", {}, w, &rng);
  train::InitParameter("bn_beta", {}, b, &rng);
  train::InitParameter("bn_gamma", {}, g, &rng);
  train::InitParameter("bn_moving_var", {}, mv, &rng);
  double sum2 = 0;
  for (double x : test::ToVector(w)) sum2 += x * x;
  EXPECT_NEAR(std::sqrt(sum2 / w.Size()), std::sqrt(2.0 / (64 * 9)), 0.002);
  for (double x : test::ToVector(b)) EXPECT_EQ(x, 0.0);
  for (double x : test::ToVector(g)) EXPECT_EQ(x, 1.0);
  for (double x : test::ToVector(mv)) EXPECT_EQ(x, 1.0);
  train::InitParameter("bn3_gamma", {{"__init__", "[\"zero\", {}]"}}, g, &rng);
  for (double x : test::ToVector(g)) EXPECT_EQ(x, 0.0);
  EXPECT_THROW(train::InitParameter("mystery", {}, b, &rng), Error);
}

TEST(Metrics, AccuracyAndCrossEntropySkipPadding) {
  const float p[] = {0.9f, 0.1f, 0.3f, 0.7f, 0.6f, 0.4f};
  const float l[] = {0, 0, 1};
  train::Metrics m;
  m.Update(NDArray::FromBuffer(p, Shape{3, 2}, DType::kFloat32, DType::kFloat32),
           NDArray::FromBuffer(l, Shape{3}, DType::kFloat32, DType::kFloat32), 2);
  EXPECT_EQ(m.count, 2);
  EXPECT_DOUBLE_EQ(m.accuracy(), 0.5);
  EXPECT_NEAR(m.cross_entropy(), -(std::log(0.9) + std::log(0.3)) / 2, 1e-6);
}

/*! \brief Two Gaussian blobs per class in 8-D: an easy problem a small MLP learns in steps. */
void Blobs(int n, uint32_t seed, NDArray* x, NDArray* y) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.f, 0.5f);
  std::vector<float> xs(n * 8), ys(n);
  for (int i = 0; i < n; ++i) {
    ys[i] = static_cast<float>(i % 4);
    for (int j = 0; j < 8; ++j) xs[i * 8 + j] = (j % 4 == i % 4 ? 2.f : 0.f) + noise(rng);
  }
  *x = NDArray::FromBuffer(xs.data(), Shape{n, 8}, DType::kFloat32, DType::kFloat32);
  *y = NDArray::FromBuffer(ys.data(), Shape{n}, DType::kFloat32, DType::kFloat32);
}

train::TrainerOptions MlpOptions(const std::string& amp) {
  train::TrainerOptions o;
  o.input_shapes = {{"data", Shape{32, 8}}, {"softmax_label", Shape{32}}};
  o.amp = amp;
  o.lr.base_lr = 0.1;
  return o;
}

class TrainerLearns : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainerLearns, SmallMlpReachesHighAccuracy) {
  train::Trainer tr(test::SmallMLP(16, 4), MlpOptions(GetParam()));
  tr.InitParams(3);
  NDArray x, y;
  Blobs(32, 5, &x, &y);
  for (int i = 0; i < 40; ++i) tr.Step({x, y});
  NDArray xt, yt;
  Blobs(32, 6, &xt, &yt);
  train::Metrics m;
  m.Update(tr.Predict({xt})[0], yt, 32);
  EXPECT_GE(m.accuracy(), 0.9) << "amp=" << GetParam();
  EXPECT_EQ(tr.num_update() + tr.num_skipped(), 40);
  if (GetParam() == "float16") {
    // gradients scaled by 2^16 overflow float16 (max 65504): the first steps are skipped
    // while the scale halves, then training proceeds
    EXPECT_GT(tr.num_skipped(), 0);
    EXPECT_LE(tr.num_skipped(), 10);
    EXPECT_EQ(tr.loss_scale(), 65536.0 / (1 << tr.num_skipped()));
  } else {
    EXPECT_EQ(tr.num_skipped(), 0);  // bfloat16 has float32's range
  }
  if (!GetParam().empty())
    EXPECT_NE(tr.executor().symbol().ToJSON().find("amp_cast"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Float32AndAmp, TrainerLearns,
                         ::testing::Values("", "bfloat16", "float16"));

TEST(Trainer, OverflowSkipsTheWholeUpdateAndHalvesTheScale) {
  train::Trainer tr(test::SmallMLP(16, 4), MlpOptions("bfloat16"));
  tr.InitParams(3);
  NDArray x, y;
  Blobs(32, 5, &x, &y);
  std::vector<double> before = test::ToVector(tr.executor().arg_arrays()[1]);
  NDArray bad = x.Copy();
  bad.Fill(std::numeric_limits<double>::infinity());
  EXPECT_FALSE(tr.Step({bad, y}));
  EXPECT_EQ(tr.num_skipped(), 1);
  EXPECT_EQ(tr.num_update(), 0);
  EXPECT_EQ(tr.loss_scale(), 32768.0);
  EXPECT_EQ(test::ToVector(tr.executor().arg_arrays()[1]), before);
  EXPECT_TRUE(tr.Step({x, y}));
}

TEST(Trainer, CheckpointResumeIsBitIdentical) {
  const std::string prefix = ::testing::TempDir() + "symnet_trainer_ckpt";
  NDArray x, y;
  Blobs(32, 5, &x, &y);
  train::Trainer full(test::SmallMLP(16, 4), MlpOptions("bfloat16"));
  full.InitParams(3);
  for (int i = 0; i < 6; ++i) full.Step({x, y});

  train::Trainer first(test::SmallMLP(16, 4), MlpOptions("bfloat16"));
  first.InitParams(3);
  for (int i = 0; i < 3; ++i) first.Step({x, y});
  first.SaveCheckpoint(prefix, 1, true);
  train::Trainer resumed(test::SmallMLP(16, 4), MlpOptions("bfloat16"));
  resumed.LoadCheckpoint(prefix, 1, true);
  EXPECT_EQ(resumed.num_update(), 3);
  for (int i = 0; i < 3; ++i) resumed.Step({x, y});
  for (size_t i = 0; i < full.param_names().size(); ++i) {
    const std::string& n = full.param_names()[i];
    SCOPED_TRACE(n);
    const auto& args = full.executor().symbol().ListArguments();
    const size_t idx = std::find(args.begin(), args.end(), n) - args.begin();
    EXPECT_EQ(test::ToVector(full.executor().arg_arrays()[idx]),
              test::ToVector(resumed.executor().arg_arrays()[idx]));
  }
  EXPECT_THROW(resumed.LoadCheckpoint(prefix, 7, false), Error);  // no such file: a clear error
  for (const char* ext : {"-symbol.json", "-0001.params", "-0001.states"})
    std::remove((prefix + ext).c_str());
}

TEST(Trainer, LatestCheckpointIsTheNewestCompleteSet) {
  char tmpl[] = "/tmp/symnet_latest_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string prefix = std::string(tmpl) + "/net";
  EXPECT_EQ(train::LatestCheckpoint(prefix, false), -1);  // nothing yet
  train::Trainer tr(test::SmallMLP(16, 4), MlpOptions(""));
  tr.InitParams(3);
  tr.SaveCheckpoint(prefix, 1, true);
  tr.SaveCheckpoint(prefix, 2, false);
  EXPECT_EQ(train::LatestCheckpoint(prefix, false), 2);
  EXPECT_EQ(train::LatestCheckpoint(prefix, true), 1);  // epoch 2 has no optimizer state
  // a save killed after its .states but before its .params (written last): epoch 3 incomplete
  WriteFileAtomically(prefix + "-0003.states", "orphan");
  WriteFileAtomically(prefix + "-0004.params.tmp-123-0", "temporary");
  WriteFileAtomically(prefix + "-12.params", "not %04d");
  EXPECT_EQ(train::LatestCheckpoint(prefix, true), 1);
  EXPECT_EQ(train::LatestCheckpoint(prefix, false), 2);
  tr.SaveCheckpoint(prefix, 10000, true);  // %04d grows past four digits
  EXPECT_EQ(train::LatestCheckpoint(prefix, true), 10000);
  EXPECT_EQ(train::LatestCheckpoint(std::string(tmpl) + "/other", false), -1);
  std::system(("rm -rf '" + std::string(tmpl) + "'").c_str());
}

// soak: 2,000 AMP steps of the C++ Trainer must not grow resident memory after warm-up; the
// slack (4 MB) is allocator noise: a leak of 4 KB per step would show as 7 MB
TEST(Trainer, SoakOf2000StepsDoesNotGrowMemory) {
  train::Trainer tr(test::SmallMLP(16, 4), MlpOptions("bfloat16"));
  tr.InitParams(3);
  NDArray x, y;
  Blobs(32, 5, &x, &y);
  double base = 0;
  for (int i = 0; i < 2000; ++i) {
    if (i == 200) base = test::ResidentMB();
    tr.Step({x, y});
  }
  const double grown = test::ResidentMB() - base;
  std::printf("C++ Trainer: 1,800 steps after warm-up grew resident memory by %.2f MB\n", grown);
  EXPECT_LT(grown, 4.0);
  EXPECT_EQ(tr.num_update() + tr.num_skipped(), 2000);
}

}  // namespace
}  // namespace symnet
