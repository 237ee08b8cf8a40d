/*! \brief Top-1 accuracy and cross-entropy over class probabilities. */
#include <algorithm>
#include <cmath>
#include <vector>

#include "symnet/base.h"
#include "symnet/collectives.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

void Metrics::Update(const NDArray& probs, const NDArray& labels, int64_t valid) {
  SYMNET_CHECK(probs.shape().ndim() == 2)
      << "Metrics expects (batch, classes) probabilities, got " << probs.shape();
  const int64_t n = probs.shape()[0], k = probs.shape()[1];
  SYMNET_CHECK(labels.Size() == n)
      << "Metrics: " << labels.Size() << " labels for " << n << " rows";
  std::vector<float> p(static_cast<size_t>(probs.Size())), l(static_cast<size_t>(n));
  probs.CopyToBuffer(p.data(), DType::kFloat32);
  labels.CopyToBuffer(l.data(), DType::kFloat32);
  for (int64_t i = 0; i < std::min(n, valid); ++i) {
    const float* row = p.data() + i * k;
    const int64_t label = static_cast<int64_t>(l[i]);
    SYMNET_CHECK(label >= 0 && label < k)
        << "Metrics: label " << l[i] << " outside [0, " << k << ")";
    correct += (std::max_element(row, row + k) - row) == label;
    nll -= std::log(static_cast<double>(row[label]) + 1e-12);
    ++count;
  }
}

void Metrics::SumOverRanks() {
  if (!dist::Initialized() || dist::Size() == 1) return;
  double v[3] = {correct, nll, static_cast<double>(count)};
  dist::AllReduceSum(v, 3, "the metrics");
  correct = v[0], nll = v[1], count = static_cast<int64_t>(v[2]);
}

}  // namespace train
}  // namespace symnet
