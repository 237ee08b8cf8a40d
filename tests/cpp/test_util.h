/*! \brief Helpers for the C++ tests: random arrays, a small MLP, finite-difference checks. */
#ifndef SYMNET_TESTS_CPP_TEST_UTIL_H_
#define SYMNET_TESTS_CPP_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "symnet/symnet.h"

namespace symnet {
namespace test {

inline void FillRandom(const NDArray* a, uint32_t seed, double scale = 1.0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(0.0, scale);
  std::vector<double> v(a->Size());
  for (auto& x : v) x = dist(rng);
  a->CopyFromBuffer(v.data(), DType::kFloat64);
}

inline std::vector<double> ToVector(const NDArray& a) {
  std::vector<double> v(a.Size());
  a.CopyToBuffer(v.data(), DType::kFloat64);
  return v;
}

/*! \brief The message of the symnet::Error that `f` throws; a test failure when it throws none. */
template <typename F>
std::string ErrorMessage(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a symnet::Error";
  return "";
}

/*! \brief Resident memory of this process in MB (Linux /proc/self/statm), for soak tests. */
inline double ResidentMB() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;  // NOLINT(runtime/int): statm's fields
  if (f) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

/*! \brief data -> FullyConnected(hidden) -> relu -> FullyConnected(classes) -> SoftmaxOutput. */
inline Symbol SmallMLP(int hidden = 16, int classes = 4) {
  Symbol data = Symbol::Variable("data");
  Symbol fc1 = op::FullyConnected(data, hidden, "fc1");
  Symbol act = op::Activation(fc1, "relu", "relu1");
  Symbol fc2 = op::FullyConnected(act, classes, "fc2");
  return op::SoftmaxOutput(fc2, "softmax");
}

/*!
 * \brief Checks backward against central differences of sum(out * r) in float64, for every
 *  argument in `wrt`. Non-loss heads only (loss heads ignore r).
 */
inline void CheckGradient(const Symbol& sym, const std::map<std::string, Shape>& shapes,
                          const std::vector<std::string>& wrt, double eps = 1e-6,
                          double rtol = 1e-5, double atol = 1e-8) {
  std::map<std::string, DType> types;
  for (const auto& kv : shapes) types[kv.first] = DType::kFloat64;
  auto exe = Executor::SimpleBind(sym, Device::CPU(), shapes, types);
  const auto names = sym.ListArguments();
  for (size_t i = 0; i < names.size(); ++i) {
    NDArray a = exe->arg_arrays()[i];
    FillRandom(&a, 100 + static_cast<uint32_t>(i));
  }
  exe->Forward(true);
  std::vector<NDArray> proj;
  for (size_t i = 0; i < exe->outputs().size(); ++i) {
    NDArray r(exe->outputs()[i].shape(), Device::CPU(), DType::kFloat64);
    FillRandom(&r, 7 + static_cast<uint32_t>(i));
    proj.push_back(r);
  }
  exe->Backward(proj);
  auto objective = [&]() {
    exe->Forward(true);
    double f = 0;
    for (size_t i = 0; i < proj.size(); ++i) {
      const auto o = ToVector(exe->outputs()[i]);
      const auto r = ToVector(proj[i]);
      for (size_t j = 0; j < o.size(); ++j) f += o[j] * r[j];
    }
    return f;
  };
  for (const auto& name : wrt) {
    size_t idx = 0;
    while (idx < names.size() && names[idx] != name) ++idx;
    ASSERT_LT(idx, names.size()) << name;
    const auto symbolic = ToVector(exe->grad_arrays()[idx]);
    NDArray arg = exe->arg_arrays()[idx];
    double* p = static_cast<double*>(arg.dptr());
    for (int64_t j = 0; j < arg.Size(); ++j) {
      const double old = p[j];
      p[j] = old + eps;
      const double fp = objective();
      p[j] = old - eps;
      const double fm = objective();
      p[j] = old;
      const double numeric = (fp - fm) / (2 * eps);
      EXPECT_NEAR(symbolic[j], numeric, atol + rtol * std::fabs(numeric))
          << name << "[" << j << "]";
    }
  }
}

}  // namespace test
}  // namespace symnet

#endif  // SYMNET_TESTS_CPP_TEST_UTIL_H_
