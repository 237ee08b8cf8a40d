/*!
 * \brief _sample_unique_zipfian (MXNet's): per row of shape (batch, num_sampled), num_sampled
 *  distinct classes in [0, range_max) drawn from the log-uniform (Zipfian) distribution
 *  P(k) = log((k + 2) / (k + 1)) / log(range_max + 1) by rejecting repeats, and per row the number
 *  of draws that took (outputs (samples, num_tries), both int64).
 *
 *  A draw is floor(exp(u * log(range_max + 1))) - 1 for u uniform (the inverse of the CDF). Row b
 *  draws its uniforms at counters b * 2^40, b * 2^40 + 1, ... of the call's stream, so the rows
 *  are independent and a GPU (one thread per row) draws what the CPU draws. Repeats are found
 *  with an open-addressing hash set of the row's classes in scratch memory.
 */
#ifndef SYMNET_OPERATORS_RANDOM_UNIQUE_ZIPFIAN_H_
#define SYMNET_OPERATORS_RANDOM_UNIQUE_ZIPFIAN_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"
#include "symnet/random.h"

namespace symnet {
namespace ops {

struct SampleUniqueZipfianParam : public dmlc::Parameter<SampleUniqueZipfianParam> {
  int range_max;
  Shape shape;
  DMLC_DECLARE_PARAMETER(SampleUniqueZipfianParam) {
    DMLC_DECLARE_FIELD(range_max).set_lower_bound(1).describe(
        "The classes are 0 ... range_max - 1.");
    DMLC_DECLARE_FIELD(shape)
        .set_default(Shape::Scalar())
        .describe("(batch_size, num_sampled): the number of rows and of distinct classes per row.");
  }
};

/*! \brief The hash set's slots per row: a power of two at least twice num_sampled. */
inline int64_t UniqueZipfianSlots(int64_t num_sampled) {
  int64_t s = 2;
  while (s < 2 * num_sampled) s *= 2;
  return s;
}

struct UniqueZipfianKernel {
  SYMNET_XINLINE static void Map(int64_t b, int64_t* out, int64_t* tries, int64_t* set,
                                 int64_t slots, int64_t num_sampled, int64_t range_max,
                                 uint64_t key, double log_range) {
    out += b * num_sampled;
    set += b * slots;
    for (int64_t i = 0; i < slots; ++i) set[i] = -1;
    uint64_t t = 0;
    const uint64_t first = static_cast<uint64_t>(b) << 40;
    for (int64_t count = 0; count < num_sampled;) {
      const double u = UniformDoubleAt(key, first + t++);
      int64_t v = static_cast<int64_t>(exp(u * log_range)) - 1;
      if (v >= range_max) v = range_max - 1;  // exp's rounding at the top of the range
      if (v < 0) v = 0;
      for (uint64_t h = Mix64(static_cast<uint64_t>(v));; ++h) {
        int64_t* slot = set + (h & static_cast<uint64_t>(slots - 1));
        if (*slot == v) break;  // drawn before: rejected
        if (*slot == -1) {
          *slot = v;
          out[count++] = v;
          break;
        }
      }
    }
    tries[b] = static_cast<int64_t>(t);
  }
};

inline size_t UniqueZipfianTempBytes(const NodeAttrs& attrs) {
  const Shape& s = Param<SampleUniqueZipfianParam>(attrs).shape;
  if (s.ndim() != 2) return 0;
  return static_cast<size_t>(s[0] * UniqueZipfianSlots(s[1])) * sizeof(int64_t);
}

template <typename xpu>
void UniqueZipfianCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                          const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const SampleUniqueZipfianParam& p = Param<SampleUniqueZipfianParam>(attrs);
  const int64_t batch = out[0].shape_[0], num = out[0].shape_[1];
  const uint64_t key = NextRandomStream();
  if (batch == 0) return;
  SYMNET_CHECK(ctx.temp_bytes >= UniqueZipfianTempBytes(attrs))
      << "internal error: _sample_unique_zipfian got too little scratch memory";
  Kernel<UniqueZipfianKernel, xpu>::LaunchCost(
      batch, 2 * num, out[0].dptr<int64_t>(), out[1].dptr<int64_t>(),
      static_cast<int64_t*>(ctx.temp), UniqueZipfianSlots(num), num, p.range_max, key,
      std::log(static_cast<double>(p.range_max) + 1.0));
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_RANDOM_UNIQUE_ZIPFIAN_H_
