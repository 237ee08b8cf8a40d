/*! \brief The random samplers (sample_op.h): randint's parameter check (the others are
 *  templates in sample_op.h, shared with the _like forms), the shape and type rules that
 *  sample_extra.cc shares, and the registrations with MXNet 1.9.1's names and aliases. */
#include "sample_op.h"

#include <limits>
#include <sstream>

#include "operators/tensor/init_ops.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(RandomUniformParam);
DMLC_REGISTER_PARAMETER(RandomNormalParam);
DMLC_REGISTER_PARAMETER(RandomGammaParam);
DMLC_REGISTER_PARAMETER(RandomLambdaParam);
DMLC_REGISTER_PARAMETER(RandomRandintParam);
DMLC_REGISTER_PARAMETER(SampleParam);
DMLC_REGISTER_PARAMETER(RandomUniformLikeParam);
DMLC_REGISTER_PARAMETER(RandomNormalLikeParam);
DMLC_REGISTER_PARAMETER(RandomGammaLikeParam);
DMLC_REGISTER_PARAMETER(RandomLambdaLikeParam);

namespace {

// ---- parameter checks (the others are sample_op.h's templates) ------------------------------

/*! \brief low < high (MXNet 1.9.1 divides by zero on low == high), and int32 output (the
 *  default) needs bounds that int32 holds. */
void RandintParser(NodeAttrs* attrs) {
  ParamParser<RandomRandintParam>(attrs);
  const auto& p = Param<RandomRandintParam>(*attrs);
  std::ostringstream os;
  if (p.low >= p.high) {
    os << "low (" << p.low << ") must be less than high (" << p.high << ")";
  } else if (p.dtype != static_cast<int>(DType::kInt64) &&
             (p.low < std::numeric_limits<int32_t>::min() ||
              p.high - 1 > std::numeric_limits<int32_t>::max())) {
    os << "low (" << p.low << ") and high (" << p.high
       << ") exceed int32's range; use dtype='int64'";
  }
  FailIfAny(os);
}

}  // namespace

// ---- shape rules ------------------------------------------------------------------------------

bool SampleShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& tail = Param<SampleParam>(attrs).shape;
  const int tail_ndim = tail.ndim_known() ? tail.ndim() : 0;
  Shape params;
  for (size_t i = 0; i < in->size(); ++i)
    if ((*in)[i].ndim_known()) {
      params = (*in)[i];
      break;
    }
  if (!params.ndim_known() && (*out)[0].is_known() && (*out)[0].ndim() >= tail_ndim) {
    const Shape& o = (*out)[0];
    params = Shape(std::vector<int64_t>(o.begin(), o.end() - tail_ndim));
  }
  if (!params.ndim_known()) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignInShape(in, i, params);
  params = (*in)[0];
  if (!params.is_known()) return false;
  std::vector<int64_t> dims(params.begin(), params.end());
  for (int d = 0; d < tail_ndim; ++d) dims.push_back(tail[d]);
  AssignOutShape(out, 0, Shape(dims));
  return true;
}

// ---- type rules -------------------------------------------------------------------------------

void AssignSampleType(int given, DType fallback, bool (*ok)(DType), const char* allowed,
                      std::vector<DType>* out) {
  DType& o = (*out)[0];
  if (given >= 0) {
    AssignType(out, 0, static_cast<DType>(given), false);
  } else if (o == DType::kUnknown) {
    o = fallback;
  } else if (!ok(o)) {
    throw InferError{false, 0, allowed, DTypeName(o)};
  }
}

namespace {

bool RandintType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignSampleType(
      Param<RandomRandintParam>(attrs).dtype, DType::kInt32,
      [](DType t) { return t == DType::kInt32 || t == DType::kInt64; }, "int32 or int64", out);
  return true;
}

}  // namespace

bool SampleType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType d : *in)
    if (d != DType::kUnknown) {
      t = d;
      break;
    }
  for (size_t i = 0; i < in->size(); ++i) AssignType(in, i, t, true);
  for (size_t i = 0; i < in->size(); ++i)
    if ((*in)[i] != DType::kUnknown && !IsFloatType((*in)[i]))
      throw InferError{true, static_cast<int>(i), "a float dtype", DTypeName((*in)[i])};
  AssignSampleType(Param<SampleParam>(attrs).dtype, DType::kFloat32, IsFloatType,
                   "a float dtype (float16, bfloat16, float32 or float64)", out);
  return t != DType::kUnknown;
}

bool LikeType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(out, 0, (*in)[0], false);
  AssignType(in, 0, (*out)[0], true);
  if ((*in)[0] != DType::kUnknown && !IsFloatType((*in)[0]))
    throw InferError{true, 0, "a float dtype (float16, bfloat16, float32 or float64)",
                     DTypeName((*in)[0])};
  return (*out)[0] != DType::kUnknown;
}

namespace {

const char* const kUniformInputs[] = {"low", "high"};
const char* const kNormalInputs[] = {"mu", "sigma"};
const char* const kGammaInputs[] = {"alpha", "beta"};
const char* const kLambdaInputs[] = {"lam"};

}  // namespace

SYMNET_REGISTER_RANDOM(_random_uniform, RandomUniformParam, UniformParser<RandomUniformParam>,
                       RandomType<RandomUniformParam>,
                       (RandomCompute<cpu, RandomUniformParam, UniformSampler, true>),
                       "Samples of the uniform distribution on [low, high).")
    .add_alias("uniform")
    .add_alias("random_uniform");

SYMNET_REGISTER_RANDOM(_random_normal, RandomNormalParam, NormalParser<RandomNormalParam>,
                       RandomType<RandomNormalParam>,
                       (RandomCompute<cpu, RandomNormalParam, NormalSampler>),
                       "Samples of the normal distribution of mean loc and standard deviation "
                       "scale (Box-Muller).")
    .add_alias("normal")
    .add_alias("random_normal");

SYMNET_REGISTER_RANDOM(_random_gamma, RandomGammaParam, GammaParser<RandomGammaParam>,
                       RandomType<RandomGammaParam>,
                       (RandomCompute<cpu, RandomGammaParam, GammaSampler>),
                       "Samples of the gamma distribution of shape alpha and scale beta "
                       "(Marsaglia-Tsang).")
    .add_alias("random_gamma");

SYMNET_REGISTER_RANDOM(_random_exponential, RandomLambdaParam, ExponentialParser<RandomLambdaParam>,
                       RandomType<RandomLambdaParam>,
                       (RandomCompute<cpu, RandomLambdaParam, ExponentialSampler>),
                       "Samples of the exponential distribution of rate lam (mean 1 / lam).")
    .add_alias("random_exponential");

SYMNET_REGISTER_RANDOM(_random_poisson, RandomLambdaParam, PoissonParser<RandomLambdaParam>,
                       RandomType<RandomLambdaParam>,
                       (RandomCompute<cpu, RandomLambdaParam, PoissonSampler>),
                       "Samples of the Poisson distribution of rate lam, as floats (exact: "
                       "inversion for lam < 10, transformed rejection above).")
    .add_alias("random_poisson");

SYMNET_REGISTER_RANDOM(_random_randint, RandomRandintParam, RandintParser, RandintType,
                       RandintCompute<cpu>, "Integers drawn uniformly from [low, high).")
    .add_alias("random_randint");

SYMNET_REGISTER_RANDOM_LIKE(_random_uniform_like, RandomUniformLikeParam,
                            UniformParser<RandomUniformLikeParam>,
                            (RandomCompute<cpu, RandomUniformLikeParam, UniformSampler, true>),
                            "Samples of the uniform distribution on [low, high), of the input's "
                            "shape and dtype.");

SYMNET_REGISTER_RANDOM_LIKE(_random_normal_like, RandomNormalLikeParam,
                            NormalParser<RandomNormalLikeParam>,
                            (RandomCompute<cpu, RandomNormalLikeParam, NormalSampler>),
                            "Samples of the normal distribution of mean loc and standard "
                            "deviation scale, of the input's shape and dtype.");

SYMNET_REGISTER_RANDOM_LIKE(_random_gamma_like, RandomGammaLikeParam,
                            GammaParser<RandomGammaLikeParam>,
                            (RandomCompute<cpu, RandomGammaLikeParam, GammaSampler>),
                            "Samples of the gamma distribution of shape alpha and scale beta, of "
                            "the input's shape and dtype.");

SYMNET_REGISTER_RANDOM_LIKE(_random_exponential_like, RandomLambdaLikeParam,
                            ExponentialParser<RandomLambdaLikeParam>,
                            (RandomCompute<cpu, RandomLambdaLikeParam, ExponentialSampler>),
                            "Samples of the exponential distribution of rate lam, of the input's "
                            "shape and dtype.");

SYMNET_REGISTER_RANDOM_LIKE(_random_poisson_like, RandomLambdaLikeParam,
                            PoissonParser<RandomLambdaLikeParam>,
                            (RandomCompute<cpu, RandomLambdaLikeParam, PoissonSampler>),
                            "Samples of the Poisson distribution of rate lam, as floats of the "
                            "input's shape and dtype.");

SYMNET_REGISTER_SAMPLE(_sample_uniform, kUniformInputs, (SampleCompute<cpu, UniformSampler, true>),
                       "Samples of uniform distributions on [low, high), one per element of "
                       "low and high.")
    .add_argument("low", "NDArray-or-Symbol", "Lower bounds of the distributions.")
    .add_argument("high", "NDArray-or-Symbol", "Upper bounds of the distributions.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_uniform");

SYMNET_REGISTER_SAMPLE(_sample_normal, kNormalInputs, (SampleCompute<cpu, NormalSampler>),
                       "Samples of normal distributions, one per element of mu and sigma (a "
                       "negative sigma gives NaN).")
    .add_argument("mu", "NDArray-or-Symbol", "Means of the distributions.")
    .add_argument("sigma", "NDArray-or-Symbol", "Standard deviations of the distributions.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_normal");

SYMNET_REGISTER_SAMPLE(_sample_gamma, kGammaInputs, (SampleCompute<cpu, GammaSampler>),
                       "Samples of gamma distributions, one per element of alpha (shape) and "
                       "beta (scale); a parameter that is not positive gives NaN.")
    .add_argument("alpha", "NDArray-or-Symbol", "Alpha (shape) parameters of the distributions.")
    .add_argument("beta", "NDArray-or-Symbol", "Beta (scale) parameters of the distributions.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_gamma");

SYMNET_REGISTER_SAMPLE(_sample_exponential, kLambdaInputs, (SampleCompute<cpu, ExponentialSampler>),
                       "Samples of exponential distributions, one per element of lam (the "
                       "rates); a rate that is not positive gives NaN.")
    .add_argument("lam", "NDArray-or-Symbol", "Lambda (rate) parameters of the distributions.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_exponential");

SYMNET_REGISTER_SAMPLE(_sample_poisson, kLambdaInputs, (SampleCompute<cpu, PoissonSampler>),
                       "Samples of Poisson distributions, one per element of lam, as floats; a "
                       "negative rate gives NaN.")
    .add_argument("lam", "NDArray-or-Symbol", "Lambda (rate) parameters of the distributions.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_poisson");

}  // namespace ops
}  // namespace symnet
