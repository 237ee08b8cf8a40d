/*!
 * \brief MXNet 1.x's random samplers: _random_uniform/normal/gamma/exponential/poisson/randint
 *  (scalar parameters, a `shape` attribute, no inputs), their _random_<name>_like forms (the
 *  output has the shape and dtype of the one input, `data`, whose values are not read) and
 *  _sample_uniform/normal/gamma/exponential/poisson (one distribution per element of the
 *  parameter arrays, `shape` samples each). Templated on the device: sample_op.cc registers the
 *  CPU kernels, sample_op.cu the GPU ones. The mixtures (negative binomial, generalized negative
 *  binomial) and multinomial build on this file in sample_extra.h.
 *
 *  Every sample is a pure function of (stream key, element index): one key per forward call
 *  (NextRandomStream), and element i draws its uniforms at the counters i * kCountersPerElement +
 *  0, 1, ... of that stream. So the CPU and a GPU give the same numbers (up to the last bit of
 *  the device's log/cos/...), and symnet.random.seed(n) repeats them. All samplers compute in
 *  double from 53-bit uniforms, then round once to the output dtype.
 *
 *  Draws per element (all within the element's 64 counters):
 *  - uniform: 1. normal: 2 (Box-Muller, the cosine branch; |z| <= 8.57, the largest value a
 *    53-bit uniform reaches). exponential: 1 (inversion, -log(1 - u) / lam).
 *  - gamma: Marsaglia and Tsang's squeeze-free rejection, 3 draws per try (a normal and a
 *    uniform), at most kGammaTries = 20 tries; alpha < 1 samples alpha + 1 and scales by
 *    u^(1/alpha), one draw more. A try is accepted with probability >= 0.95, so all 20 fail
 *    with probability < 1e-26; then the sample is d * beta (about the mean).
 *  - poisson: lam < 10: inversion of the CDF by sequential search, 1 draw, exact (the search
 *    stops at 100, beyond which the probability is < 1e-60). lam >= 10: Hoermann's transformed
 *    rejection with squeeze (PTRS), exact, 2 draws per try and at most 30 tries (a try is
 *    accepted with probability > 0.85; all fail with probability < 1e-24, and the sample is
 *    then round(lam)).
 *  - randint: 64 random bits reduced modulo (high - low), rejecting the 2^64 mod (high - low)
 *    lowest values so that every integer in [low, high) is equally likely; at most 4 tries.
 */
#ifndef SYMNET_OPERATORS_RANDOM_SAMPLE_OP_H_
#define SYMNET_OPERATORS_RANDOM_SAMPLE_OP_H_

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"
#include "symnet/random.h"

namespace symnet {
namespace ops {

/*! \brief The counters of one element's stream: element i draws at i * this + 0, 1, .... */
constexpr uint64_t kCountersPerElement = 64;
constexpr int kGammaTries = 20;
constexpr int kPoissonTries = 30;
constexpr int kRandintTries = 4;
/*! \brief Below this lambda Poisson samples by inversion, from it by PTRS. */
constexpr double kPoissonInversionMax = 10.0;
/*! \brief What a sample with invalid parameters is (the NAN macro works in device code too). */
#define SYMNET_SAMPLE_NAN static_cast<double>(NAN)

/*! \brief The dtype attribute of the float samplers: None means "as inferred, else float32".
 *  bfloat16 is a symnet addition (MXNet 1.9.1 lists float16, float32 and float64). */
#define SYMNET_SAMPLE_DTYPE_FIELD(dtype)                                                   \
  DMLC_DECLARE_FIELD(dtype)                                                                \
      .add_enum("None", -1)                                                                \
      .add_enum("float16", static_cast<int>(DType::kFloat16))                              \
      .add_enum("float32", static_cast<int>(DType::kFloat32))                              \
      .add_enum("float64", static_cast<int>(DType::kFloat64))                              \
      .add_enum("bfloat16", static_cast<int>(DType::kBFloat16))                            \
      .set_default(-1)                                                                     \
      .describe(                                                                           \
          "The output's dtype; None: the dtype the graph gives the output, else float32 (" \
          "MXNet's rule).")

#define SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx)                                                \
  DMLC_DECLARE_FIELD(shape)                                                                       \
      .set_default(Shape::Scalar())                                                               \
      .describe(                                                                                  \
          "The output's shape. () and 0 dims are unknown, to be inferred from how the output is " \
          "used (MXNet's convention); a 0 dim that nothing decides is 0, an empty dim.");         \
  DMLC_DECLARE_FIELD(ctx).set_default("").describe(                                               \
      "The device of an imperative call's output, as 'cpu(0)' or 'gpu(1)' (default cpu(0)); in "  \
      "a graph the executor's device is used.")

// Each distribution's fields, shared by the _random_<name> op's struct and the _like form's
#define SYMNET_UNIFORM_FIELDS(low, high)                                                 \
  DMLC_DECLARE_FIELD(low).set_default(0.0).describe("Lower bound of the distribution."); \
  DMLC_DECLARE_FIELD(high).set_default(1.0).describe(                                    \
      "Upper bound of the distribution (excluded: samples are in [low, high)).")
#define SYMNET_NORMAL_FIELDS(loc, scale)                                          \
  DMLC_DECLARE_FIELD(loc).set_default(0.0).describe("Mean of the distribution."); \
  DMLC_DECLARE_FIELD(scale).set_default(1.0).describe(                            \
      "Standard deviation of the distribution (positive).")
#define SYMNET_GAMMA_FIELDS(alpha, beta)                                \
  DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe(                  \
      "Alpha (shape) parameter of the gamma distribution (positive)."); \
  DMLC_DECLARE_FIELD(beta).set_default(1.0).describe(                   \
      "Beta (scale) parameter of the gamma distribution (positive).")
#define SYMNET_LAMBDA_FIELD(lam)                                                                   \
  DMLC_DECLARE_FIELD(lam).set_default(1.0).describe(                                               \
      "Lambda parameter (rate) of the distribution: exponential of mean 1 / lam, Poisson of mean " \
      "lam.")

struct RandomUniformParam : public dmlc::Parameter<RandomUniformParam> {
  double low, high;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomUniformParam) {
    SYMNET_UNIFORM_FIELDS(low, high);
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

struct RandomNormalParam : public dmlc::Parameter<RandomNormalParam> {
  double loc, scale;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomNormalParam) {
    SYMNET_NORMAL_FIELDS(loc, scale);
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

struct RandomGammaParam : public dmlc::Parameter<RandomGammaParam> {
  double alpha, beta;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomGammaParam) {
    SYMNET_GAMMA_FIELDS(alpha, beta);
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

/*! \brief _random_exponential and _random_poisson: one rate. */
struct RandomLambdaParam : public dmlc::Parameter<RandomLambdaParam> {
  double lam;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomLambdaParam) {
    SYMNET_LAMBDA_FIELD(lam);
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

// The _random_<name>_like ops: the distribution's parameters only (the input gives the shape,
// the dtype and the device)
struct RandomUniformLikeParam : public dmlc::Parameter<RandomUniformLikeParam> {
  double low, high;
  DMLC_DECLARE_PARAMETER(RandomUniformLikeParam) { SYMNET_UNIFORM_FIELDS(low, high); }
};
struct RandomNormalLikeParam : public dmlc::Parameter<RandomNormalLikeParam> {
  double loc, scale;
  DMLC_DECLARE_PARAMETER(RandomNormalLikeParam) { SYMNET_NORMAL_FIELDS(loc, scale); }
};
struct RandomGammaLikeParam : public dmlc::Parameter<RandomGammaLikeParam> {
  double alpha, beta;
  DMLC_DECLARE_PARAMETER(RandomGammaLikeParam) { SYMNET_GAMMA_FIELDS(alpha, beta); }
};
/*! \brief _random_exponential_like and _random_poisson_like. */
struct RandomLambdaLikeParam : public dmlc::Parameter<RandomLambdaLikeParam> {
  double lam;
  DMLC_DECLARE_PARAMETER(RandomLambdaLikeParam) { SYMNET_LAMBDA_FIELD(lam); }
};

struct RandomRandintParam : public dmlc::Parameter<RandomRandintParam> {
  int64_t low, high;
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandomRandintParam) {
    DMLC_DECLARE_FIELD(low).describe("Lower bound of the distribution (included).");
    DMLC_DECLARE_FIELD(high).describe("Upper bound of the distribution (excluded).");
    SYMNET_RANDOM_SHAPE_CTX_FIELDS(shape, ctx);
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1)
        .add_enum("int32", static_cast<int>(DType::kInt32))
        .add_enum("int64", static_cast<int>(DType::kInt64))
        .set_default(-1)
        .describe("The output's dtype; None: the dtype the graph gives the output, else int32.");
  }
};

/*! \brief The _sample_* ops: `shape` samples per parameter element. */
struct SampleParam : public dmlc::Parameter<SampleParam> {
  Shape shape;
  int dtype;
  DMLC_DECLARE_PARAMETER(SampleParam) {
    DMLC_DECLARE_FIELD(shape).set_default(Shape()).describe(
        "Shape to be sampled from each distribution: the output's shape is the parameters' "
        "shape followed by this one.");
    SYMNET_SAMPLE_DTYPE_FIELD(dtype);
  }
};

// ---- the samplers: (stream key, first counter, parameters) -> one sample, in double ----------

/*! \brief Uniform on [low, high). */
struct UniformSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double low, double high) {
    return low + (high - low) * UniformDoubleAt(key, c);
  }
};

/*! \brief Box-Muller: sqrt(-2 log(1 - u1)) cos(2 pi u2); 1 - u1 is in (0, 1], so no log(0). */
SYMNET_XINLINE double StandardNormalAt(uint64_t key, uint64_t c) {
  const double r = std::sqrt(-2.0 * std::log(1.0 - UniformDoubleAt(key, c)));
  return r * std::cos(6.283185307179586 * UniformDoubleAt(key, c + 1));
}

struct NormalSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double loc, double scale) {
    if (!(scale >= 0)) return SYMNET_SAMPLE_NAN;
    return loc + scale * StandardNormalAt(key, c);
  }
};

/*! \brief Marsaglia-Tsang (see the file comment for the draws); beta is the scale. */
struct GammaSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double alpha, double beta) {
    if (!(alpha > 0) || !(beta > 0)) return SYMNET_SAMPLE_NAN;
    // alpha < 1: G(alpha) = G(alpha + 1) * u^(1/alpha), which keeps the rejection efficient
    const double a = alpha < 1 ? alpha + 1 : alpha;
    const double d = a - 1.0 / 3.0, cc = 1.0 / std::sqrt(9.0 * d);
    double g = d;
    for (int t = 0; t < kGammaTries; ++t) {
      const uint64_t at = c + 1 + 3 * static_cast<uint64_t>(t);
      const double z = StandardNormalAt(key, at);
      double v = 1.0 + cc * z;
      if (v <= 0) continue;
      v = v * v * v;
      const double u = 1.0 - UniformDoubleAt(key, at + 2);  // (0, 1]
      if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) {
        g = d * v;
        break;
      }
    }
    if (alpha < 1) g *= std::pow(1.0 - UniformDoubleAt(key, c), 1.0 / alpha);
    return g * beta;
  }
};

/*! \brief Inversion: -log(1 - u) / lam. */
struct ExponentialSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double lam, double) {
    if (!(lam > 0)) return SYMNET_SAMPLE_NAN;
    return -std::log(1.0 - UniformDoubleAt(key, c)) / lam;
  }
};

/*! \brief Inversion below kPoissonInversionMax, PTRS above (see the file comment). */
struct PoissonSampler {
  SYMNET_XINLINE static double Draw(uint64_t key, uint64_t c, double lam, double) {
    if (lam == 0) return 0;
    if (!(lam > 0) || !(lam < 1e15)) return SYMNET_SAMPLE_NAN;
    if (lam < kPoissonInversionMax) {
      const double u = UniformDoubleAt(key, c);
      double p = std::exp(-lam), cdf = p;
      int k = 0;
      while (u > cdf && k < 100) {
        ++k;
        p *= lam / k;
        cdf += p;
      }
      return k;
    }
    const double slam = std::sqrt(lam), loglam = std::log(lam);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2);
    for (int t = 0; t < kPoissonTries; ++t) {
      const double u = UniformDoubleAt(key, c + 2 * t) - 0.5;
      const double v = UniformDoubleAt(key, c + 2 * t + 1);
      const double us = 0.5 - std::fabs(u);
      // k stays a double: with us = 0 it is -inf, which the test below rejects
      const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
      if (us >= 0.07 && v <= v_r) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
          -lam + k * loglam - std::lgamma(k + 1))
        return k;
    }
    return std::floor(lam + 0.5);
  }
};

/*! \brief low + (an unbiased integer in [0, range)); range = high - low > 0. */
SYMNET_XINLINE int64_t RandintAt(uint64_t key, uint64_t c, int64_t low, uint64_t range) {
  const uint64_t reject_below = (uint64_t{0} - range) % range;  // 2^64 mod range
  uint64_t r = 0;
  for (int t = 0; t < kRandintTries; ++t) {
    r = RandomBitsAt(key, c + t);
    if (r >= reject_below) break;
  }
  return static_cast<int64_t>(static_cast<uint64_t>(low) + r % range);
}

/*! \brief Rounds a uniform sample to T and keeps it below high, which the rounding of
 *  low + (high - low) u can reach (float32 and float64; 16-bit outputs round to nearest and may
 *  equal high). */
template <typename T>
SYMNET_XINLINE double BelowHigh(double v, double low, double high) {
  if constexpr (std::is_same<T, float>::value) {
    const float h = static_cast<float>(high);
    float f = static_cast<float>(v);
    if (f >= h && high > low) f = std::nextafter(h, -HUGE_VALF);
    return f;
  } else if constexpr (std::is_same<T, double>::value) {
    return v >= high && high > low ? std::nextafter(high, -HUGE_VAL) : v;
  } else {
    return v;
  }
}

// ---- kernels --------------------------------------------------------------------------------

/*! \brief out[i] = a sample of S with scalar parameters (p1, p2). */
template <int req, typename S, bool below_high>
struct RandomKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, uint64_t key, double p1, double p2) {
    double v = S::Draw(key, static_cast<uint64_t>(i) * kCountersPerElement, p1, p2);
    if constexpr (below_high) v = BelowHigh<T>(v, p1, p2);
    AssignReq<req>(&out[i], static_cast<AccType<T>>(v));
  }
};

/*! \brief out[i] = a sample of S with the parameters of element i / per of p1 (and p2). */
template <int req, typename S, bool below_high>
struct SampleKernel {
  template <typename T, typename P>
  SYMNET_XINLINE static void Map(int64_t i, T* out, uint64_t key, const P* p1, const P* p2,
                                 int64_t per) {
    const int64_t j = i / per;
    const double a = static_cast<double>(static_cast<AccType<P>>(p1[j]));
    const double b = p2 != nullptr ? static_cast<double>(static_cast<AccType<P>>(p2[j])) : 0.0;
    double v = S::Draw(key, static_cast<uint64_t>(i) * kCountersPerElement, a, b);
    if constexpr (below_high) v = BelowHigh<T>(v, a, b);
    AssignReq<req>(&out[i], static_cast<AccType<T>>(v));
  }
};

template <int req>
struct RandintKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, uint64_t key, int64_t low, uint64_t range) {
    AssignReq<req>(&out[i], static_cast<AccType<T>>(RandintAt(
                                key, static_cast<uint64_t>(i) * kCountersPerElement, low, range)));
  }
};

// ---- the parameters of each _random_* op, as (p1, p2) ----------------------------------------
// Chosen by the struct's field names, so that an op's struct and its _like form's share one rule
// (sample_extra.h adds the mixtures' k, p and mu, alpha).
template <typename P>
auto ScalarParams(const P& p, double* a, double* b) -> decltype(p.low, p.high, void()) {
  *a = p.low;
  *b = p.high;
}
template <typename P>
auto ScalarParams(const P& p, double* a, double* b) -> decltype(p.loc, p.scale, void()) {
  *a = p.loc;
  *b = p.scale;
}
template <typename P>
auto ScalarParams(const P& p, double* a, double* b) -> decltype(p.alpha, p.beta, void()) {
  *a = p.alpha;
  *b = p.beta;
}
template <typename P>
auto ScalarParams(const P& p, double* a, double* b) -> decltype(p.lam, void()) {
  *a = p.lam;
  *b = 0;
}

/*! \brief FCompute of _random_<S> (no inputs) and _random_<S>_like (the input is not read): a
 *  fresh stream per call. */
template <typename xpu, typename P, typename S, bool below_high = false>
void RandomCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = out[0].Size();
  if (n == 0) return;
  double a, b;
  ScalarParams(Param<P>(attrs), &a, &b);
  const uint64_t key = NextRandomStream();
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<RandomKernel<Req, S, below_high>, xpu>::Launch(n, out[0].dptr<T>(), key, a, b);
    });
  });
}

template <typename xpu>
void RandintCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = out[0].Size();
  if (n == 0) return;
  const RandomRandintParam& p = Param<RandomRandintParam>(attrs);
  const uint64_t range = static_cast<uint64_t>(p.high) - static_cast<uint64_t>(p.low);
  const uint64_t key = NextRandomStream();
  SYMNET_REQ_SWITCH(req[0], Req, {
    if (out[0].dtype_ == DType::kInt64) {
      Kernel<RandintKernel<Req>, xpu>::Launch(n, out[0].dptr<int64_t>(), key, p.low, range);
    } else {
      SYMNET_CHECK(out[0].dtype_ == DType::kInt32)
          << "_random_randint: output dtype " << DTypeName(out[0].dtype_)
          << " is not int32 or int64";
      Kernel<RandintKernel<Req>, xpu>::Launch(n, out[0].dptr<int32_t>(), key, p.low, range);
    }
  });
}

/*! \brief FCompute of _sample_<S>: inputs are the parameter arrays (one or two, of one shape and
 *  dtype); each element's distribution gives out.Size() / in.Size() consecutive samples. */
template <typename xpu, typename S, bool below_high = false>
void SampleCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = out[0].Size(), m = in[0].Size();
  if (n == 0 || m == 0) return;
  const uint64_t key = NextRandomStream();
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, P, {
    const P* p2 = in.size() > 1 ? in[1].dptr<P>() : nullptr;
    SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
      SYMNET_REQ_SWITCH(req[0], Req, {
        Kernel<SampleKernel<Req, S, below_high>, xpu>::Launch(n, out[0].dptr<T>(), key,
                                                              in[0].dptr<P>(), p2, n / m);
      });
    });
  });
}

// ---- what the registrations share (sample_op.cc, and sample_extra.cc for the mixtures) -------

/*! \brief Throws dmlc::ParamError with the text, if any, that a parameter check wrote. */
inline void FailIfAny(const std::ostringstream& os) {
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

// Attribute parsers with MXNet's checks, made when the node is created; templated on the
// parameter struct so that an op and its _like form check alike.
template <typename P>
void UniformParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& p = Param<P>(*attrs);
  std::ostringstream os;
  if (!std::isfinite(p.low) || !std::isfinite(p.high))
    os << "low (" << p.low << ") and high (" << p.high << ") must be finite";
  else if (p.low > p.high)
    os << "low (" << p.low << ") must not exceed high (" << p.high << ")";
  FailIfAny(os);
}

template <typename P>
void NormalParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& p = Param<P>(*attrs);
  std::ostringstream os;
  if (!(p.scale > 0)) os << "scale (" << p.scale << ") must be positive";
  FailIfAny(os);
}

template <typename P>
void GammaParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& p = Param<P>(*attrs);
  std::ostringstream os;
  if (!(p.alpha > 0)) os << "alpha (" << p.alpha << ") must be positive";
  if (!(p.beta > 0)) os << "beta (" << p.beta << ") must be positive";
  FailIfAny(os);
}

template <typename P>
void ExponentialParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& p = Param<P>(*attrs);
  std::ostringstream os;
  if (!(p.lam > 0) || !std::isfinite(p.lam)) os << "lam (" << p.lam << ") must be positive";
  FailIfAny(os);
}

template <typename P>
void PoissonParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& p = Param<P>(*attrs);
  std::ostringstream os;
  if (!(p.lam >= 0) || !(p.lam < 1e15))
    os << "lam (" << p.lam << ") must be non-negative (and below 1e15)";
  FailIfAny(os);
}

/*! \brief MXNet's type rule of the samplers: the dtype attribute (`given`, -1 for None), else
 *  what the graph gives output 0, else `fallback`; `ok` says which dtypes the kernel writes. */
void AssignSampleType(int given, DType fallback, bool (*ok)(DType), const char* allowed,
                      std::vector<DType>* out);

/*! \brief FInferType of _random_*: a float output (RandomParam's dtype attribute). */
template <typename P>
bool RandomType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignSampleType(Param<P>(attrs).dtype, DType::kFloat32, IsFloatType,
                   "a float dtype (float16, bfloat16, float32 or float64)", out);
  return true;
}

/*! \brief FInferShape of _sample_*: the parameter arrays share one shape; the output is that
 *  shape followed by SampleParam's `shape` (and a known output gives the parameters' shape). */
bool SampleShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out);
/*! \brief FInferType of _sample_*: the parameter arrays share one float dtype; the output's is
 *  RandomType's. */
bool SampleType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);
/*! \brief FInferType of _random_*_like: the output has the input's dtype, a float one. */
bool LikeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);

template <int N>
FListInputNames InputNames(const char* const (&names)[N]) {
  std::vector<std::string> v(names, names + N);
  return [v](const NodeAttrs&) { return v; };
}

// _random_<name>: no inputs, scalar parameters; its output draws new numbers at every call (the
// shape rules are the creation ops', InitShape in operators/tensor/init_ops.h, which the
// registering file includes)
#define SYMNET_REGISTER_RANDOM(NAME, PARAM, PARSER, TYPE, COMPUTE, DOC)       \
  SYMNET_REGISTER_OP(NAME)                                                    \
      .describe(DOC)                                                          \
      .set_num_inputs(0)                                                      \
      .set_attr<TDrawsRandom>("TDrawsRandom", true)                           \
      .set_attr_parser(PARSER)                                                \
      .add_arguments(ParamDocs<PARAM>())                                      \
      .set_attr<FInferShape>("FInferShape", InitShape<PARAM>)                 \
      .set_attr<FInferShape>("FInferShapeFallback", InitShapeFallback<PARAM>) \
      .set_attr<FInferType>("FInferType", TYPE)                               \
      .set_attr<FGradient>("FGradient", NoInputGradients)                     \
      .set_attr<FCompute>("FCompute<cpu>", COMPUTE)

// _random_<name>_like: samples of the shape and dtype of the one input, `data`, which gets a zero
// gradient (MXNet's rule)
#define SYMNET_REGISTER_RANDOM_LIKE(NAME, PARAM, PARSER, COMPUTE, DOC)                            \
  SYMNET_REGISTER_OP(NAME)                                                                        \
      .describe(DOC)                                                                              \
      .set_num_inputs(1)                                                                          \
      .set_attr<TDrawsRandom>("TDrawsRandom", true)                                               \
      .set_attr_parser(PARSER)                                                                    \
      .add_argument("data", "NDArray-or-Symbol", "The input: only its shape and dtype are used.") \
      .add_arguments(ParamDocs<PARAM>())                                                          \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                                        \
      .set_attr<FInferType>("FInferType", LikeType)                                               \
      .set_attr<FGradient>("FGradient", NoInputGradients)                                         \
      .set_attr<FCompute>("FCompute<cpu>", COMPUTE)

// _sample_<name>: one distribution per element of the parameter arrays, `shape` samples each;
// the parameters get zero gradients (MXNet's rule)
#define SYMNET_REGISTER_SAMPLE(NAME, INPUTS, COMPUTE, DOC)              \
  SYMNET_REGISTER_OP(NAME)                                              \
      .describe(DOC)                                                    \
      .set_num_inputs(sizeof(INPUTS) / sizeof(INPUTS[0]))               \
      .set_attr<FListInputNames>("FListInputNames", InputNames(INPUTS)) \
      .set_attr<TDrawsRandom>("TDrawsRandom", true)                     \
      .set_attr_parser(ParamParser<SampleParam>)                        \
      .set_attr<FInferShape>("FInferShape", SampleShape)                \
      .set_attr<FInferType>("FInferType", SampleType)                   \
      .set_attr<FGradient>("FGradient", NoInputGradients)               \
      .set_attr<FCompute>("FCompute<cpu>", COMPUTE)

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_RANDOM_SAMPLE_OP_H_
