/*!
 * \brief One rank of the C++ Trainer's distributed test (tests/python/test_dist.py), run as
 *  `mpirun -np N symnet_trainer_ranks OUT [amp]` or alone (a job of one process):
 *  the small MLP of the C++ tests trains 20 SGD steps (momentum, weight decay) on a global batch of
 *  32 samples per step, rank r taking samples r, r + N, ...; each rank starts from its own random
 *  weights (the Trainer must broadcast rank 0's) and writes OUT/rank<r>.params (every parameter,
 *  then the loss scale as a one-element array) and OUT/rank<r>.events (the gradient reducer's).
 */
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "symnet/symnet.h"
#include "tests/cpp/test_util.h"

using namespace symnet;  // NOLINT: a test program

namespace {

constexpr int kGlobalBatch = 32, kSteps = 20;

/*! \brief Sample i of step s: 8 features, label i % 4 (the same values in any split). */
void Sample(int step, int i, float* x, float* y) {
  std::mt19937 rng(static_cast<unsigned>(1000 * step + i));
  std::normal_distribution<float> noise(0.f, 0.5f);
  *y = static_cast<float>(i % 4);
  for (int j = 0; j < 8; ++j) x[j] = (j % 4 == i % 4 ? 2.f : 0.f) + noise(rng);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT [amp]\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1], amp = argc > 2 ? argv[2] : "";
  const char* launched = std::getenv("OMPI_COMM_WORLD_SIZE");
  const bool multi = launched != nullptr && std::atoi(launched) > 1;
  try {
    train::TrainerOptions o;
    o.kvstore = multi ? "dist_sync" : "local";
    o.gradient_bucket_bytes = 256;  // several buckets even for this small network
    o.amp = amp;
    o.lr.base_lr = 0.1;
    o.momentum = 0.9;
    o.wd = 1e-4;
    int ranks = 1, rank = 0;
    if (multi) {
      dist::Init();
      ranks = dist::Size(), rank = dist::Rank();
    }
    const int batch = kGlobalBatch / ranks;
    o.input_shapes = {{"data", Shape{batch, 8}}, {"softmax_label", Shape{batch}}};
    train::Trainer tr(test::SmallMLP(16, 4), o);
    tr.InitParams(3 + static_cast<uint64_t>(rank));
    std::vector<float> xs(static_cast<size_t>(batch) * 8), ys(static_cast<size_t>(batch));
    for (int step = 0; step < kSteps; ++step) {
      for (int k = 0; k < batch; ++k) Sample(step, rank + k * ranks, &xs[k * 8], &ys[k]);
      tr.Step({NDArray::FromBuffer(xs.data(), Shape{batch, 8}, DType::kFloat32, DType::kFloat32),
               NDArray::FromBuffer(ys.data(), Shape{batch}, DType::kFloat32, DType::kFloat32)});
    }
    std::vector<NDArray> arrays;
    std::vector<std::string> names = tr.param_names();
    const auto args = tr.executor().symbol().ListArguments();
    for (const auto& n : names)
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i] == n) arrays.push_back(tr.executor().arg_arrays()[i]);
    const double scale = tr.loss_scale();
    arrays.push_back(NDArray::FromBuffer(&scale, Shape{1}, DType::kFloat64, DType::kFloat64));
    names.push_back("loss_scale");
    SaveNDArrays(out + "/rank" + std::to_string(rank) + ".params", arrays, names);
    std::ofstream ev(out + "/rank" + std::to_string(rank) + ".events");
    if (tr.gradient_reducer() != nullptr)
      for (const auto& e : tr.gradient_reducer()->events()) ev << e << "\n";
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "rank error: %s\n", e.what());
    return 1;
  }
}
