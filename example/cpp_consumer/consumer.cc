/*!
 * \brief Trains a small classifier with an installed symnet (see CMakeLists.txt beside it): the
 *  symbol API, a bound executor, sgd_mom_update called imperatively, a .params round trip and
 *  a profiler trace. Exits non-zero when training does not reach 95% accuracy, so a CI step that
 *  runs it checks the installed package works, not only that it links.
 */
#include <symnet/symnet.h>

#include <cmath>
#include <cstdio>
#include <random>

using namespace symnet;  // NOLINT: an example reads better without prefixes

int main() {
  try {
    // XOR of four clusters around (+-1, +-1): label 1 where the signs differ (no linear model
    // separates them, so passing needs the hidden layers to learn)
    const int n = 256, batch = 32;
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 0.25f);
    std::vector<float> x(2 * n), y(n);
    for (int i = 0; i < n; ++i) {
      const float sx = (i & 1) ? 1.0f : -1.0f, sy = (i & 2) ? 1.0f : -1.0f;
      x[2 * i] = sx + noise(rng);
      x[2 * i + 1] = sy + noise(rng);
      y[i] = sx * sy < 0 ? 1.0f : 0.0f;
    }

    Symbol net = Symbol::Variable("data");
    net = op::Activation(op::FullyConnected(net, 16, "fc1"), "tanh", "act1");
    net = op::Activation(op::FullyConnected(net, 16, "fc2"), "tanh", "act2");
    net = op::SoftmaxOutput(op::FullyConnected(net, 2, "fc3"), "softmax");
    auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{batch, 2}}});
    const std::vector<std::string> names = net.ListArguments();
    std::vector<NDArray> moms;
    std::uniform_real_distribution<float> init(-0.5f, 0.5f);
    for (const NDArray& a : exe->arg_arrays()) {
      std::vector<float> w(static_cast<size_t>(a.Size()));
      for (float& v : w) v = init(rng);
      a.CopyFromBuffer(w.data(), DType::kFloat32);
      moms.push_back(NDArray::Zeros(a.shape()));
    }
    const std::map<std::string, std::string> sgd{
        {"lr", "0.2"}, {"momentum", "0.9"}, {"rescale_grad", FormatParam(1.0 / batch)}};

    profiler::Config config;
    config.aggregate = true;
    profiler::SetConfig(config);
    profiler::SetRunning(true);
    for (int epoch = 0; epoch < 30; ++epoch) {
      for (int b = 0; b + batch <= n; b += batch) {
        exe->arg_arrays()[0].CopyFromBuffer(&x[2 * b], DType::kFloat32);
        exe->arg_arrays().back().CopyFromBuffer(&y[b], DType::kFloat32);
        exe->Forward(true);
        exe->Backward();
        for (size_t i = 1; i + 1 < names.size(); ++i)  // every weight and bias
          Invoke("sgd_mom_update", sgd, {exe->arg_arrays()[i], exe->grad_arrays()[i], moms[i]},
                 {exe->arg_arrays()[i]});
      }
    }
    profiler::SetRunning(false);

    // accuracy, after a save/load round trip of the weights in MXNet's .params format
    std::vector<NDArray> saved;
    std::vector<std::string> keys;
    for (size_t i = 1; i + 1 < names.size(); ++i) {
      saved.push_back(exe->arg_arrays()[i].Copy());
      keys.push_back("arg:" + names[i]);
      exe->arg_arrays()[i].Fill(0.0);  // only the file holds the weights now
    }
    const std::string file = "consumer_model.params";
    SaveNDArrays(file, saved, keys);
    std::vector<NDArray> loaded;
    std::vector<std::string> loaded_keys;
    LoadNDArrays(file, &loaded, &loaded_keys);
    std::remove(file.c_str());
    for (size_t i = 1; i + 1 < names.size(); ++i) {
      SYMNET_CHECK(loaded_keys[i - 1] == keys[i - 1]) << "round trip lost " << keys[i - 1];
      exe->arg_arrays()[i].CopyFrom(loaded[i - 1]);
    }
    int correct = 0;
    std::vector<float> prob(2 * batch);
    for (int b = 0; b + batch <= n; b += batch) {
      exe->arg_arrays()[0].CopyFromBuffer(&x[2 * b], DType::kFloat32);
      exe->Forward(false);
      exe->outputs()[0].CopyToBuffer(prob.data(), DType::kFloat32);
      for (int i = 0; i < batch; ++i)
        correct += (prob[2 * i + 1] > prob[2 * i]) == (y[b + i] > 0.5f);
    }
    const double accuracy = static_cast<double>(correct) / n;
    const std::string table = profiler::AggregateTable(false, "total", false, false);
    std::printf(
        "symnet consumer: accuracy %.3f after 30 epochs; profiled %s\n", accuracy,
        table.find("FullyConnected") != std::string::npos ? "FullyConnected calls" : "nothing");
    return accuracy >= 0.95 && table.find("FullyConnected") != std::string::npos ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "symnet consumer: %s\n", e.what());
    return 2;
  }
}
