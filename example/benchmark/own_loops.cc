/*!
 * \brief own_loops: symnet's own element-wise loops (ReLU, its gradient, add, add-to, bfloat16
 *  conversion) over one ResNet-50 stage-1 activation at batch 32, float32 and bfloat16, best of
 *  7 calls. It decides whether per-ISA builds of these loops pay (docs/design_notes.md item 20):
 *  the target builds them for the portable baseline; compare with a build for this CPU:
 *
 *    build/pip/example/own_loops
 *    g++ -O3 -std=c++17 -march=native -fno-trapping-math -fopenmp -Iinclude -I. \
 *      example/benchmark/own_loops.cc -Lbuild/pip -lsymnet -Wl,-rpath,build/pip -o /tmp/own_native
 *    /tmp/own_native
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "operators/tensor/elemwise_kernels.h"

namespace {

using namespace symnet;       // NOLINT(build/namespaces): a benchmark's one file
using namespace symnet::ops;  // NOLINT(build/namespaces)

template <typename F>
double BestMs(F f) {
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best * 1e3;
}

template <typename T>
void Run(const char* name, int64_t n) {
  std::vector<T> x(n), y(n), z(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = T(static_cast<float>(i % 7 - 3));
    y[i] = T(static_cast<float>(i % 5));
  }
  const T *xp = x.data(), *yp = y.data();
  T* zp = z.data();
  const double relu =
      BestMs([&] { Kernel<UnaryKernel<mathf::relu, kWriteTo>, cpu>::Launch(n, zp, xp); });
  const double grad = BestMs(
      [&] { Kernel<UnaryGradKernel<mathf::relu_grad, kWriteTo>, cpu>::Launch(n, zp, xp, yp); });
  const double add =
      BestMs([&] { Kernel<BinaryKernel<mathf::plus, kWriteTo>, cpu>::Launch(n, zp, xp, yp); });
  const double add_to =
      BestMs([&] { Kernel<UnaryKernel<mathf::identity, kAddTo>, cpu>::Launch(n, zp, xp); });
  std::printf("%-8s relu %6.2f ms  relu_grad %6.2f ms  add %6.2f ms  add-to %6.2f ms\n", name, relu,
              grad, add, add_to);
}

}  // namespace

int main() {
  const int64_t n = int64_t{32} * 64 * 56 * 56;
  Run<float>("float32", n);
  Run<bf16_t>("bfloat16", n);
  std::vector<float> f(n, 1.5f);
  std::vector<bf16_t> h(n);
  const double to16 = BestMs([&] {
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) h[i] = bf16_t(f[i]);
  });
  const double to32 = BestMs([&] {
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(h[i]);
  });
  std::printf("convert float32 -> bfloat16 %.2f ms, bfloat16 -> float32 %.2f ms (%lld elements)\n",
              to16, to32, static_cast<long long>(n));
  return 0;
}
