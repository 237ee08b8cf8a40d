/*!
 * \brief The digits MLP (64-128-64-10) trained from C++ with the symbol API: the same network,
 *  split and schedule as train_mlp.py. Data comes from export_digits.py.
 *
 *    python3 example/mlp/export_digits.py && build/example/train_mlp example/mlp/data
 */
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>

#include "symnet/symnet.h"

using namespace symnet;  // NOLINT: an example reads better without prefixes

struct Dataset {
  int rows = 0, cols = 0;
  std::vector<float> x, y;
};

Dataset Load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SYMNET_CHECK(f.good()) << "cannot open " << path << "; run example/mlp/export_digits.py first";
  char magic[4];
  Dataset d;
  f.read(magic, 4);
  f.read(reinterpret_cast<char*>(&d.rows), 4);
  f.read(reinterpret_cast<char*>(&d.cols), 4);
  SYMNET_CHECK(f.good() && std::memcmp(magic, "SNDG", 4) == 0 && d.rows > 0 && d.cols > 0)
      << path << " is not a digits file written by export_digits.py";
  d.x.resize(static_cast<size_t>(d.rows) * d.cols);
  d.y.resize(d.rows);
  f.read(reinterpret_cast<char*>(d.x.data()), d.x.size() * 4);
  f.read(reinterpret_cast<char*>(d.y.data()), d.y.size() * 4);
  SYMNET_CHECK(f.good()) << path << " is truncated";
  return d;
}

Symbol MLP() {
  auto data = Symbol::Variable("data");
  auto fc1 = op::FullyConnected(data, 128, "fc1");
  auto act1 = op::Activation(fc1, "relu", "relu1");
  auto fc2 = op::FullyConnected(act1, 64, "fc2");
  auto act2 = op::Activation(fc2, "relu", "relu2");
  auto fc3 = op::FullyConnected(act2, 10, "fc3");
  return op::SoftmaxOutput(fc3, "softmax");
}

double Accuracy(Executor* exe, const Dataset& d, int batch) {
  int correct = 0, seen = 0;
  std::vector<float> out(batch * 10);
  for (int b = 0; b + batch <= d.rows; b += batch) {
    exe->arg_arrays()[0].CopyFromBuffer(&d.x[static_cast<size_t>(b) * d.cols], DType::kFloat32);
    exe->Forward(false);
    exe->outputs()[0].CopyToBuffer(out.data(), DType::kFloat32);
    for (int i = 0; i < batch; ++i) {
      const float* row = &out[i * 10];
      const int pred = static_cast<int>(std::max_element(row, row + 10) - row);
      correct += pred == static_cast<int>(d.y[b + i]);
    }
    seen += batch;
  }
  return static_cast<double>(correct) / seen;
}

int main(int argc, char** argv) {
  try {
    if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
      std::printf(
          "usage: train_mlp [DATA_DIR=example/mlp/data]\n"
          "  trains the digits MLP from DATA_DIR/digits_{train,test}.bin, which\n"
          "  example/mlp/export_digits.py writes\n");
      return 0;
    }
    const std::string dir = argc > 1 ? argv[1] : "example/mlp/data";
    const Dataset train = Load(dir + "/digits_train.bin"), test = Load(dir + "/digits_test.bin");
    const int batch = 40, epochs = 30;
    Symbol net = MLP();
    auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{batch, train.cols}}});
    const auto names = net.ListArguments();
    std::mt19937 rng(0);
    std::vector<NDArray> moms;
    for (size_t i = 0; i < names.size(); ++i) {
      const NDArray& a = exe->arg_arrays()[i];
      moms.push_back(NDArray::Zeros(a.shape()));
      if (names[i].size() > 7 && names[i].compare(names[i].size() - 7, 7, "_weight") == 0) {
        // Xavier uniform
        const double s = std::sqrt(6.0 / (a.shape()[0] + a.shape()[1]));
        std::uniform_real_distribution<float> u(-s, s);
        std::vector<float> w(a.Size());
        for (auto& v : w) v = u(rng);
        a.CopyFromBuffer(w.data(), DType::kFloat32);
      }
    }
    const std::map<std::string, std::string> sgd{{"lr", "0.1"},
                                                 {"momentum", "0.9"},
                                                 {"wd", "0.0001"},
                                                 {"rescale_grad", FormatParam(1.0 / batch)}};
    std::vector<int> order(train.rows);
    std::iota(order.begin(), order.end(), 0);
    std::vector<float> xb(static_cast<size_t>(batch) * train.cols), yb(batch);
    const auto start = std::chrono::steady_clock::now();
    for (int epoch = 0; epoch < epochs; ++epoch) {
      std::shuffle(order.begin(), order.end(), rng);
      for (int b = 0; b + batch <= train.rows; b += batch) {
        for (int i = 0; i < batch; ++i) {
          std::copy_n(&train.x[static_cast<size_t>(order[b + i]) * train.cols], train.cols,
                      &xb[i * train.cols]);
          yb[i] = train.y[order[b + i]];
        }
        exe->arg_arrays()[0].CopyFromBuffer(xb.data(), DType::kFloat32);
        exe->arg_arrays().back().CopyFromBuffer(yb.data(), DType::kFloat32);
        exe->Forward(true);
        exe->Backward();
        for (size_t i = 1; i + 1 < names.size(); ++i)
          Invoke("sgd_mom_update", sgd, {exe->arg_arrays()[i], exe->grad_arrays()[i], moms[i]},
                 {exe->arg_arrays()[i]});
      }
      if ((epoch + 1) % 10 == 0)
        std::printf("epoch %2d  held-out accuracy %.4f\n", epoch + 1,
                    Accuracy(exe.get(), test, batch));
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double acc = Accuracy(exe.get(), test, batch);
    const MemoryReport& r = exe->memory_report();
    std::printf("trained %d epochs in %.2f s; held-out accuracy %.4f\n", epochs, secs, acc);
    std::printf("memory: arena %zu bytes (no sharing %zu, lower bound %zu, %zu in-place)\n",
                r.arena_bytes, r.no_sharing_bytes, r.lower_bound_bytes, r.num_inplace);
    return acc >= 0.95 ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
