/*!
 * \brief Learning-rate schedules, with the Python classes' rules (lr_scheduler.py) so a run
 *  behaves the same from either front end.
 */
#include <algorithm>
#include <cmath>

#include "symnet/train.h"

namespace symnet {
namespace train {

double LRScheduler::operator()(int64_t num_update) const {
  if (num_update < warmup_steps)
    return warmup_begin_lr +
           (base_lr - warmup_begin_lr) * static_cast<double>(num_update) / warmup_steps;
  switch (kind) {
    case kMultiFactor: {
      int passed = 0;
      for (int64_t s : steps) passed += num_update > s;
      return base_lr * std::pow(factor, passed);
    }
    case kCosine: {
      if (num_update >= max_update) return final_lr;
      const double t = static_cast<double>(num_update - warmup_steps) /
                       static_cast<double>(max_update - warmup_steps);
      return final_lr + (base_lr - final_lr) * (1.0 + std::cos(M_PI * t)) / 2.0;
    }
    case kConstant:
    default:
      return base_lr;
  }
}

}  // namespace train
}  // namespace symnet
