/*!
 * \brief C++ twin of resnet50_train.py: times ResNet training steps (forward, backward,
 *  sgd_mom_update per parameter) on random data; prints img/s and time per operator.
 *
 *    build/pip/example/resnet50_train [batch=32] [dtype=float32|bfloat16] [steps=5] [layers=50]
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "symnet/symnet.h"

using namespace symnet;  // NOLINT: an example reads better without prefixes

int main(int argc, char** argv) {
  try {
    const int batch = argc > 1 ? std::atoi(argv[1]) : 32;
    const DType dtype = DTypeFromName(argc > 2 ? argv[2] : "float32");
    const int steps = argc > 3 ? std::atoi(argv[3]) : 5;
    models::ResNetOptions opt;
    opt.num_layers = argc > 4 ? std::atoi(argv[4]) : 50;
    Symbol net = models::ResNet(opt);
    const auto names = net.ListArguments();
    std::map<std::string, GradReq> reqs{{"data", GradReq::kNull},
                                        {"softmax_label", GradReq::kNull}};
    auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{batch, 3, 224, 224}}},
                                    {{"data", dtype}}, reqs);
    std::mt19937 rng(0);
    std::vector<NDArray> moms(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      const NDArray& a = exe->arg_arrays()[i];
      std::vector<float> v(a.Size());
      const bool weight = names[i].find("weight") != std::string::npos;
      const double scale =
          a.shape().ndim() > 1 ? std::sqrt(2.0 / a.shape().ProdRange(1, a.shape().ndim())) : 1.0;
      std::normal_distribution<float> dist(0.f, static_cast<float>(scale));
      for (auto& x : v)
        x = weight || names[i] == "data"
                ? dist(rng)
                : (names[i].find("gamma") != std::string::npos ? 1.f : 0.f);
      if (names[i] == "softmax_label")
        for (auto& x : v) x = static_cast<float>(rng() % 1000);
      a.CopyFromBuffer(v.data(), DType::kFloat32);
      if (exe->grad_reqs()[i] != GradReq::kNull)
        moms[i] = NDArray::Zeros(a.shape(), Device::CPU(), a.dtype());
    }
    for (const auto& a : exe->aux_arrays()) a.Fill(0.0);
    const std::map<std::string, std::string> sgd{{"lr", "0.01"},
                                                 {"momentum", "0.9"},
                                                 {"wd", "0.0001"},
                                                 {"rescale_grad", FormatParam(1.0 / batch)}};
    auto step = [&] {
      exe->Forward(true);
      exe->Backward();
      for (size_t i = 0; i < names.size(); ++i)
        if (!moms[i].is_none())
          Invoke("sgd_mom_update", sgd, {exe->arg_arrays()[i], exe->grad_arrays()[i], moms[i]},
                 {exe->arg_arrays()[i]});
    };
    for (int i = 0; i < 2; ++i) step();
    exe->SetProfiling(true);
    std::vector<double> times;
    for (int i = 0; i < steps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      step();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    const double med = times[times.size() / 2];
    std::printf("ResNet-%d v%s (C++), batch %d, %s: %.2f img/s, %.1f ms/step (median of %d)\n",
                opt.num_layers, opt.version.c_str(), batch, DTypeName(dtype), batch / med,
                med * 1e3, steps);
    auto prof = exe->OpProfile();
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& kv : prof) rows.emplace_back(kv.second.first, kv.first);
    std::sort(rows.rbegin(), rows.rend());
    for (const auto& r : rows)
      std::printf("  %-28s %8.1f ms/step\n", r.second.c_str(), r.first / steps * 1e3);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
