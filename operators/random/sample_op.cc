/*! \brief The random samplers (sample_op.h): parameter checks, shape and type rules, and the
 *  registrations with MXNet 1.9.1's names and aliases. */
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

namespace {

// ---- parameter checks (MXNet's, made when the node is created) -------------------------------

void Fail(const std::ostringstream& os) {
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

void UniformParser(NodeAttrs* attrs) {
  ParamParser<RandomUniformParam>(attrs);
  const auto& p = Param<RandomUniformParam>(*attrs);
  std::ostringstream os;
  if (!std::isfinite(p.low) || !std::isfinite(p.high))
    os << "low (" << p.low << ") and high (" << p.high << ") must be finite";
  else if (p.low > p.high)
    os << "low (" << p.low << ") must not exceed high (" << p.high << ")";
  Fail(os);
}

void NormalParser(NodeAttrs* attrs) {
  ParamParser<RandomNormalParam>(attrs);
  const auto& p = Param<RandomNormalParam>(*attrs);
  std::ostringstream os;
  if (!(p.scale > 0)) os << "scale (" << p.scale << ") must be positive";
  Fail(os);
}

void GammaParser(NodeAttrs* attrs) {
  ParamParser<RandomGammaParam>(attrs);
  const auto& p = Param<RandomGammaParam>(*attrs);
  std::ostringstream os;
  if (!(p.alpha > 0)) os << "alpha (" << p.alpha << ") must be positive";
  if (!(p.beta > 0)) os << "beta (" << p.beta << ") must be positive";
  Fail(os);
}

void ExponentialParser(NodeAttrs* attrs) {
  ParamParser<RandomLambdaParam>(attrs);
  const auto& p = Param<RandomLambdaParam>(*attrs);
  std::ostringstream os;
  if (!(p.lam > 0) || !std::isfinite(p.lam)) os << "lam (" << p.lam << ") must be positive";
  Fail(os);
}

void PoissonParser(NodeAttrs* attrs) {
  ParamParser<RandomLambdaParam>(attrs);
  const auto& p = Param<RandomLambdaParam>(*attrs);
  std::ostringstream os;
  if (!(p.lam >= 0) || !(p.lam < 1e15))
    os << "lam (" << p.lam << ") must be non-negative (and below 1e15)";
  Fail(os);
}

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
  Fail(os);
}

// ---- shape rules ------------------------------------------------------------------------------

// the shape rules are the creation ops' (InitShape in operators/tensor/init_ops.h)

/*! \brief The parameter arrays share one shape; the output is that shape followed by `shape`
 *  (and a known output gives the parameters' shape back). */
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

bool IsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}

/*! \brief MXNet's rule: the dtype attribute, else what the graph gives the output, else
 *  `fallback`; `ok` says which dtypes the kernel writes. */
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

template <typename P>
bool RandomType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignSampleType(Param<P>(attrs).dtype, DType::kFloat32, IsFloat,
                   "a float dtype (float16, bfloat16, float32 or float64)", out);
  return true;
}

bool RandintType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignSampleType(
      Param<RandomRandintParam>(attrs).dtype, DType::kInt32,
      [](DType t) { return t == DType::kInt32 || t == DType::kInt64; }, "int32 or int64", out);
  return true;
}

/*! \brief The parameter arrays share one float dtype; the output's dtype is RandomType's. */
bool SampleType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType d : *in)
    if (d != DType::kUnknown) {
      t = d;
      break;
    }
  for (size_t i = 0; i < in->size(); ++i) AssignType(in, i, t, true);
  for (size_t i = 0; i < in->size(); ++i)
    if ((*in)[i] != DType::kUnknown && !IsFloat((*in)[i]))
      throw InferError{true, static_cast<int>(i), "a float dtype", DTypeName((*in)[i])};
  AssignSampleType(Param<SampleParam>(attrs).dtype, DType::kFloat32, IsFloat,
                   "a float dtype (float16, bfloat16, float32 or float64)", out);
  return t != DType::kUnknown;
}

template <int N>
FListInputNames InputNames(const char* const (&names)[N]) {
  std::vector<std::string> v(names, names + N);
  return [v](const NodeAttrs&) { return v; };
}

const char* const kUniformInputs[] = {"low", "high"};
const char* const kNormalInputs[] = {"mu", "sigma"};
const char* const kGammaInputs[] = {"alpha", "beta"};
const char* const kLambdaInputs[] = {"lam"};

}  // namespace

// _random_<name>: no inputs, scalar parameters; its output draws new numbers at every call
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

SYMNET_REGISTER_RANDOM(_random_uniform, RandomUniformParam, UniformParser,
                       RandomType<RandomUniformParam>,
                       (RandomCompute<cpu, RandomUniformParam, UniformSampler, true>),
                       "Samples of the uniform distribution on [low, high).")
    .add_alias("uniform")
    .add_alias("random_uniform");

SYMNET_REGISTER_RANDOM(_random_normal, RandomNormalParam, NormalParser,
                       RandomType<RandomNormalParam>,
                       (RandomCompute<cpu, RandomNormalParam, NormalSampler>),
                       "Samples of the normal distribution of mean loc and standard deviation "
                       "scale (Box-Muller).")
    .add_alias("normal")
    .add_alias("random_normal");

SYMNET_REGISTER_RANDOM(_random_gamma, RandomGammaParam, GammaParser, RandomType<RandomGammaParam>,
                       (RandomCompute<cpu, RandomGammaParam, GammaSampler>),
                       "Samples of the gamma distribution of shape alpha and scale beta "
                       "(Marsaglia-Tsang).")
    .add_alias("random_gamma");

SYMNET_REGISTER_RANDOM(_random_exponential, RandomLambdaParam, ExponentialParser,
                       RandomType<RandomLambdaParam>,
                       (RandomCompute<cpu, RandomLambdaParam, ExponentialSampler>),
                       "Samples of the exponential distribution of rate lam (mean 1 / lam).")
    .add_alias("random_exponential");

SYMNET_REGISTER_RANDOM(_random_poisson, RandomLambdaParam, PoissonParser,
                       RandomType<RandomLambdaParam>,
                       (RandomCompute<cpu, RandomLambdaParam, PoissonSampler>),
                       "Samples of the Poisson distribution of rate lam, as floats (exact: "
                       "inversion for lam < 10, transformed rejection above).")
    .add_alias("random_poisson");

SYMNET_REGISTER_RANDOM(_random_randint, RandomRandintParam, RandintParser, RandintType,
                       RandintCompute<cpu>, "Integers drawn uniformly from [low, high).")
    .add_alias("random_randint");

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
