/*!
 * \brief A stable descending argsort that runs inside one kernel thread (host or device): the
 *  detection ops (MultiBoxTarget, MultiBoxDetection, Proposal) sort per image in a sequential
 *  loop, on the GPU too, so the sort cannot use std::stable_sort or a device-wide sort.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_DETECTION_SORT_H_
#define SYMNET_OPERATORS_CONTRIB_DETECTION_SORT_H_

#include <cstdint>

#include "symnet/base.h"

namespace symnet {
namespace ops {

/*!
 * \brief Orders idx[0..n) so that key[idx[i]] does not increase; equal keys keep their order in
 *  idx. A bottom-up merge sort (O(n log n), no recursion) with `tmp` (n ints) as the buffer.
 *  Stability is what makes ties deterministic, and what MXNet's MultiBox ops promise.
 */
template <typename K>
SYMNET_XINLINE void StableArgsortDesc(const K* key, int* idx, int* tmp, int n) {
  int* src = idx;
  int* dst = tmp;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      const int mid = lo + width < n ? lo + width : n;
      const int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int a = lo, b = mid, o = lo;
      // the right run's element goes first only when strictly larger: equal keys keep order
      while (a < mid && b < hi) dst[o++] = key[src[b]] > key[src[a]] ? src[b++] : src[a++];
      while (a < mid) dst[o++] = src[a++];
      while (b < hi) dst[o++] = src[b++];
    }
    int* t = src;
    src = dst;
    dst = t;
  }
  if (src != idx)
    for (int i = 0; i < n; ++i) idx[i] = src[i];
}

/*! \brief Rounds a byte count up to 8, so that the next array in a workspace is aligned. */
inline size_t AlignUp8(size_t bytes) { return (bytes + 7) / 8 * 8; }

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_DETECTION_SORT_H_
