/*!
 * \brief A stable descending argsort that runs inside one kernel thread (host or device): the
 *  detection ops (MultiBoxTarget, MultiBoxDetection, Proposal) sort per image in a sequential
 *  loop, on the GPU too, so the sort cannot use std::stable_sort or a device-wide sort. box_nms
 *  and bipartite_matching sort through it as well.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_DETECTION_SORT_H_
#define SYMNET_OPERATORS_CONTRIB_DETECTION_SORT_H_

#include <cstdint>

#include "symnet/base.h"

namespace symnet {
namespace ops {

/*!
 * \brief Sorts idx[0, n) stably by key(idx) (descending unless `ascend`), with tmp[0, n) as the
 *  merge buffer: a bottom-up merge sort, O(n log n) on one thread of either device.
 */
template <typename Key>
SYMNET_XINLINE void StableSortIndex(int32_t* idx, int32_t* tmp, int64_t n, const Key& key,
                                    bool ascend) {
  int32_t* src = idx;
  int32_t* dst = tmp;
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      const int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const auto ki = key(src[i]), kj = key(src[j]);
        // the right run goes first only when strictly before: equal keys keep their order
        const bool right_first = ascend ? kj < ki : kj > ki;
        dst[k++] = right_first ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int32_t* t = src;
    src = dst;
    dst = t;
  }
  if (src != idx)
    for (int64_t i = 0; i < n; ++i) idx[i] = src[i];
}

/*! \brief key(i) = key[i]: StableSortIndex over an array of keys. */
template <typename K>
struct ArrayKey {
  const K* key;
  SYMNET_XINLINE K operator()(int32_t i) const { return key[i]; }
};

/*! \brief Orders idx[0..n) so that key[idx[i]] does not increase, equal keys in their order. */
template <typename K>
SYMNET_XINLINE void StableArgsortDesc(const K* key, int32_t* idx, int32_t* tmp, int n) {
  StableSortIndex(idx, tmp, n, ArrayKey<K>{key}, false);
}

/*! \brief Rounds a byte count up to 8, so that the next array in a workspace is aligned. */
inline size_t AlignUp8(size_t bytes) { return (bytes + 7) / 8 * 8; }

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_DETECTION_SORT_H_
