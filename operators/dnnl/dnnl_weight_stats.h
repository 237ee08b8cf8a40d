/*!
 * \brief Counts of weight reorders into oneDNN primitives' formats, done and skipped because the
 *  primitive's copy was current (see DnnlOperand::CachedInput): a debug statistic for tests and
 *  benchmarks, free of oneDNN headers so that the Python bindings can read it.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_WEIGHT_STATS_H_
#define SYMNET_OPERATORS_DNNL_DNNL_WEIGHT_STATS_H_

#include <cstdint>

namespace symnet {
namespace dnnl_util {

/*! \brief Weight reorders since the process started. */
struct WeightReorderCounts {
  uint64_t reordered = 0;  // reorders run
  uint64_t reused = 0;     // reorders skipped: the copy in the primitive's format was current
};
WeightReorderCounts WeightReorderStats();
/*! \brief Counts one weight reorder run (reused false) or skipped (true). */
void CountWeightReorder(bool reused);
/*!
 * \brief Whether kernels may keep reordered weights between calls: true unless the environment
 *  sets SYMNET_WEIGHT_CACHE=0 (read once) or SetWeightCacheEnabled(false) was called. For
 *  measuring what the cache saves; turning it off never gives a different result.
 */
bool WeightCacheEnabled();
/*! \brief Switches the cache at run time (benchmarks compare both in one process). */
void SetWeightCacheEnabled(bool on);

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_WEIGHT_STATS_H_
