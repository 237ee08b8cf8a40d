/*!
 * \brief MXNet 1.x's remaining samplers, built on sample_op.h: the negative binomial and
 *  generalized negative binomial (gamma-Poisson mixtures) as _random_* (scalar parameters),
 *  _random_*_like and _sample_* (parameter arrays), and _sample_multinomial (category indices
 *  drawn from rows of probabilities, optionally with their log-probabilities, whose gradient
 *  flows back to the probabilities). sample_extra.cc registers the CPU kernels, sample_extra.cu
 *  the GPU ones; as in sample_op.h every sample is a pure function of (stream key, counter), so
 *  the CPU and a GPU draw the same numbers.
 *
 *  The mixtures, in double:
 *  - negative_binomial(k, p) = Poisson(Gamma(k, scale (1 - p) / p)): the failures before the
 *    k-th success when p is each trial's success probability (MXNet's docs call p the failure
 *    probability); mean k (1 - p) / p, variance k (1 - p) / p^2. p = 1 gives 0.
 *  - generalized_negative_binomial(mu, alpha) = Poisson(Gamma(1 / alpha, scale mu alpha)); mean
 *    mu, variance mu + alpha mu^2. alpha = 0 is Poisson(mu); mu = 0 gives 0.
 *  The gamma stage alone may use all but 3 of an element's 64 counters (20 tries of 3 draws and
 *  the alpha < 1 boost), and the Poisson stage up to 60 (PTRS), so the Poisson stage draws from
 *  the same counters i * 64 + 0, 1, ... under a second key, PoissonStageKey(key) =
 *  Mix64(key ^ kPoissonStageSalt). Why the stages are independent: a uniform is
 *  Mix64(key ^ Mix64(counter + g)) and the outer Mix64 is a bijection, so the two stages' draws
 *  are the mix of different 64-bit inputs unless key ^ key2 happens to equal
 *  Mix64(c1 + g) ^ Mix64(c2 + g) for two counters drawn (a 2^-64 chance per pair); and key2 is a
 *  full-avalanche mix of key, unrelated to it as far as the outer mix can tell. That is the
 *  argument by which two forward calls' streams (keys Mix64(seed + Mix64(n))) are independent:
 *  the Poisson stage is, in effect, a stream of its own. A Poisson mean of 1e15 or more (a
 *  gamma draw far in the tail, or p near 0) is drawn as round(lam + sqrt(lam) z): its relative
 *  spread, < 3.2e-8, is below float32's resolution, and the normal approximation's error at such
 *  a mean is smaller still.
 *
 *  _sample_multinomial: sample i (flat index over data.shape[:-1] + shape) draws one uniform u at
 *  counter i * 64 and takes the first category j whose running sum p[0] + ... + p[j] (in double)
 *  exceeds u. Such a j always has p[j] > 0; when rounding leaves the row's total at or below u
 *  (a row summing to 1 - 1e-8, say), it takes the last category with p > 0 instead, never an
 *  index past the row (0 if the row has no positive entry). One thread per sample (each reads
 *  its row and writes its own outputs, so a single row with many samples still fills a GPU); the
 *  gradient of the log-probabilities, head_grad / p[sample] added at the
 *  sampled category (MXNet's), runs one thread per row, which zeroes (write) its k gradients and
 *  adds its samples' terms in order: no atomics, deterministic.
 */
#ifndef SYMNET_OPERATORS_RANDOM_SAMPLE_EXTRA_H_
#define SYMNET_OPERATORS_RANDOM_SAMPLE_EXTRA_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sample_op.h"

namespace symnet {
namespace ops {

/*! \brief Salt of the Poisson stage's key (the fractional bits of sqrt(2)). */
constexpr uint64_t kPoissonStageSalt = 0x6a09e667f3bcc908ULL;
/*! \brief From this mean the mixtures' Poisson stage is drawn as a rounded normal. */
constexpr double kMixturePoissonNormalFrom = 1e15;

// ---- parameters ------------------------------------------------------------------------------

#define SYMNET_NEGATIVE_BINOMIAL_FIELDS(k, p)                                                     \
  DMLC_DECLARE_FIELD(k).set_default(1).describe("Limit of unsuccessful experiments (positive)."); \
  DMLC_DECLARE_FIELD(p).set_default(1.0).describe(                                                \
      "Failure probability in each experiment, in (0, 1] (MXNet's name; the mean is "             \
      "k (1 - p) / p).")
#define SYMNET_GENERALIZED_NEGATIVE_BINOMIAL_FIELDS(mu, alpha)                               \
  DMLC_DECLARE_FIELD(mu).set_default(1.0).describe(                                          \
      "Mean of the negative binomial distribution (non-negative).");                         \
  DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe(                                       \
      "Alpha (dispersion) parameter of the negative binomial distribution (non-negative; 0 " \
      "is the Poisson distribution).")

struct RandomNegBinomialParam : public dmlc::Parameter<RandomNegBinomialParam> {
  int k;
  double p;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomNegBinomialParam) {
    SYMNET_NEGATIVE_BINOMIAL_FIELDS(k, p);
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

struct RandomGenNegBinomialParam : public dmlc::Parameter<RandomGenNegBinomialParam> {
  double mu, alpha;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomGenNegBinomialParam) {
    SYMNET_GENERALIZED_NEGATIVE_BINOMIAL_FIELDS(mu, alpha);
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

struct RandomNegBinomialLikeParam : public dmlc::Parameter<RandomNegBinomialLikeParam> {
  int k;
  double p;
  DMLC_DECLARE_PARAMETER(RandomNegBinomialLikeParam) { SYMNET_NEGATIVE_BINOMIAL_FIELDS(k, p); }
};

struct RandomGenNegBinomialLikeParam : public dmlc::Parameter<RandomGenNegBinomialLikeParam> {
  double mu, alpha;
  DMLC_DECLARE_PARAMETER(RandomGenNegBinomialLikeParam) {
    SYMNET_GENERALIZED_NEGATIVE_BINOMIAL_FIELDS(mu, alpha);
  }
};

struct SampleMultinomialParam : public dmlc::Parameter<SampleMultinomialParam> {
  Shape shape;
  bool get_prob;
  int dtype;
  DMLC_DECLARE_PARAMETER(SampleMultinomialParam) {
    DMLC_DECLARE_FIELD(shape).set_default(Shape()).describe(
        "Shape to be sampled from each distribution: the output's shape is data's without its "
        "last axis, followed by this one ((1,) when both are empty).");
    DMLC_DECLARE_FIELD(get_prob).set_default(false).describe(
        "Whether to also return the log-probability of each sample (data's dtype), whose "
        "gradient reaches data: head_grad / p at the sampled category (a REINFORCE-style "
        "estimator).");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float16", static_cast<int>(DType::kFloat16))
        .add_enum("float32", static_cast<int>(DType::kFloat32))
        .add_enum("float64", static_cast<int>(DType::kFloat64))
        .add_enum("int32", static_cast<int>(DType::kInt32))
        .add_enum("uint8", static_cast<int>(DType::kUint8))
        .set_default(static_cast<int>(DType::kInt32))
        .describe("The dtype of the sampled category indices.");
  }
};

// the mixtures' parameters as (p1, p2), by field names as in sample_op.h
template <typename P>
auto ScalarParams(const P& param, double* a, double* b) -> decltype(param.k, param.p, void()) {
  *a = param.k;
  *b = param.p;
}
template <typename P>
auto ScalarParams(const P& param, double* a, double* b) -> decltype(param.mu, param.alpha, void()) {
  *a = param.mu;
  *b = param.alpha;
}

// ---- the mixtures ---------------------------------------------------------------------------

/*! \brief The key of the mixtures' Poisson stage (see the file comment). */
SYMNET_XINLINE uint64_t PoissonStageKey(uint64_t key) { return Mix64(key ^ kPoissonStageSalt); }

/*! \brief Poisson(lam) for lam >= 0 of any size: PoissonSampler below 1e15, a rounded normal
 *  from there; an infinite or NaN lam is returned as is. */
SYMNET_XINLINE double MixturePoissonAt(uint64_t key, uint64_t c, double lam) {
  if (lam < kMixturePoissonNormalFrom) return PoissonSampler::Draw(key, c, lam, 0);
  if (!(lam < HUGE_VAL)) return lam;
  return std::floor(lam + std::sqrt(lam) * StandardNormalAt(key, c) + 0.5);
}

/*! \brief Poisson(Gamma(k, (1 - p) / p)); NaN unless k > 0 and 0 < p <= 1. */
struct NegBinomialSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double k, double p) {
    if (!(k > 0) || !(k < HUGE_VAL) || !(p > 0) || !(p <= 1)) return SYMNET_SAMPLE_NAN;
    if (p == 1) return 0;
    const double lam = GammaSampler::Draw(key, c, k, (1 - p) / p);
    return MixturePoissonAt(PoissonStageKey(key), c, lam);
  }
};

/*! \brief Poisson(Gamma(1 / alpha, mu alpha)), Poisson(mu) for alpha = 0; NaN unless mu and
 *  alpha are finite and non-negative. */
struct GenNegBinomialSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double mu, double alpha) {
    if (!(mu >= 0) || !(mu < HUGE_VAL) || !(alpha >= 0) || !(alpha < HUGE_VAL))
      return SYMNET_SAMPLE_NAN;
    if (mu == 0) return 0;
    const double lam = alpha == 0 ? mu : GammaSampler::Draw(key, c, 1 / alpha, mu * alpha);
    return MixturePoissonAt(PoissonStageKey(key), c, lam);
  }
};

// ---- multinomial ----------------------------------------------------------------------------

/*! \brief Binds NAME to the C++ type of a sample dtype of _sample_multinomial (MXNet's list). */
#define SYMNET_MULTINOMIAL_INDEX_SWITCH(dtype, NAME, ...)                                       \
  switch (dtype) {                                                                              \
    SYMNET_TYPE_CASE_(::symnet::DType::kInt32, int32_t, NAME, __VA_ARGS__)                      \
    SYMNET_TYPE_CASE_(::symnet::DType::kUint8, uint8_t, NAME, __VA_ARGS__)                      \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat32, float, NAME, __VA_ARGS__)                      \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat64, double, NAME, __VA_ARGS__)                     \
    SYMNET_TYPE_CASE_(::symnet::DType::kFloat16, ::symnet::half_t, NAME, __VA_ARGS__)           \
    default:                                                                                    \
      SYMNET_THROW << "_sample_multinomial: the samples' dtype must be int32, uint8, float32, " \
                   << "float64 or float16, not " << (dtype);                                    \
  }

/*! \brief Writes `v` to `out` for a request known only at run time. */
template <typename T, typename V>
SYMNET_XINLINE void AssignRuntimeReq(T* out, V v, int req) {
  if (req == kAddTo)
    AssignReq<kAddTo>(out, v);
  else if (req != kNullOp)
    AssignReq<kWriteTo>(out, v);
}

/*! \brief Sample i of `per` from row i / per of the k probabilities `prob` (file comment):
 *  out[i] = its category, logp[i] (when given) = log p[category]. */
struct MultinomialKernel {
  template <typename T, typename P>
  SYMNET_XINLINE static void Map(int64_t i, T* out, P* logp, const P* prob, uint64_t key,
                                 int64_t per, int64_t k, int req_out, int req_logp) {
    const P* row = prob + (i / per) * k;
    const double u = UniformDoubleAt(key, static_cast<uint64_t>(i) * kCountersPerElement);
    double sum = 0;
    int64_t pick = -1, last_positive = 0;
    for (int64_t j = 0; j < k; ++j) {
      const double pj = static_cast<double>(static_cast<AccType<P>>(row[j]));
      if (pj > 0) last_positive = j;
      sum += pj;
      if (u < sum) {
        pick = j;
        break;
      }
    }
    if (pick < 0) pick = last_positive;
    AssignRuntimeReq(&out[i], static_cast<AccType<T>>(pick), req_out);
    if (logp != nullptr) {
      const double lp = std::log(static_cast<double>(static_cast<AccType<P>>(row[pick])));
      AssignRuntimeReq(&logp[i], static_cast<AccType<P>>(lp), req_logp);
    }
  }
};

/*! \brief Row r's gradient: grad[r, j] (zeroed first unless req is kAddTo) plus, for each of the
 *  row's `per` samples s, head[r, s] / prob[r, j] where s drew category j. */
struct MultinomialGradKernel {
  template <typename P, typename S>
  SYMNET_XINLINE static void Map(int64_t r, P* grad, const P* head, const P* prob, const S* samples,
                                 int64_t per, int64_t k, int req) {
    using A = AccType<P>;
    P* g = grad + r * k;
    const P* p = prob + r * k;
    if (req != kAddTo)
      for (int64_t j = 0; j < k; ++j) g[j] = P(A(0));
    for (int64_t s = r * per; s < (r + 1) * per; ++s) {
      const double v = static_cast<double>(static_cast<AccType<S>>(samples[s]));
      if (!(v >= 0 && v < static_cast<double>(k))) continue;  // not a category this op drew
      const int64_t j = static_cast<int64_t>(v);
      g[j] = P(static_cast<A>(g[j]) + static_cast<A>(head[s]) / static_cast<A>(p[j]));
    }
  }
};

/*! \brief FCompute of _sample_multinomial: in = {data}, out = {samples[, log-probabilities]}. */
template <typename xpu>
void MultinomialCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = out[0].Size();
  if (n == 0) return;  // the shape rule makes k > 0 and data non-empty otherwise
  const int64_t k = in[0].shape_.back(), rows = in[0].Size() / k, per = n / rows;
  const uint64_t key = NextRandomStream();
  const bool with_prob = out.size() > 1;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, P, {
    P* logp = with_prob ? out[1].dptr<P>() : nullptr;
    SYMNET_MULTINOMIAL_INDEX_SWITCH(out[0].dtype_, T, {
      Kernel<MultinomialKernel, xpu>::LaunchCost(
          n, k, out[0].dptr<T>(), logp, in[0].dptr<P>(), key, per, k, static_cast<int>(req[0]),
          with_prob ? static_cast<int>(req[1]) : static_cast<int>(kNullOp));
    });
  });
}

/*! \brief FCompute of _backward_sample_multinomial: in = {head gradient of the
 *  log-probabilities, data, samples}, out = {data's gradient}. */
template <typename xpu>
void MultinomialGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t size = out[0].Size();
  if (size == 0 || req[0] == kNullOp) return;
  const int64_t k = in[1].shape_.back(), rows = size / k, per = in[2].Size() / rows;
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, P, {
    SYMNET_MULTINOMIAL_INDEX_SWITCH(in[2].dtype_, S, {
      Kernel<MultinomialGradKernel, xpu>::LaunchCost(
          rows, per + k, out[0].dptr<P>(), in[0].dptr<P>(), in[1].dptr<P>(), in[2].dptr<S>(), per,
          k, static_cast<int>(req[0]));
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_RANDOM_SAMPLE_EXTRA_H_
