/*! \brief The mixtures and multinomial of sample_extra.h: parameter checks, shape and type
 *  rules, the multinomial's gradient, and the registrations with MXNet 1.9.1's names and
 *  aliases. */
#include "sample_extra.h"

#include <sstream>

#include "operators/tensor/init_ops.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(RandomNegBinomialParam);
DMLC_REGISTER_PARAMETER(RandomGenNegBinomialParam);
DMLC_REGISTER_PARAMETER(RandomNegBinomialLikeParam);
DMLC_REGISTER_PARAMETER(RandomGenNegBinomialLikeParam);
DMLC_REGISTER_PARAMETER(SampleMultinomialParam);

namespace {

// ---- parameter checks, made when the node is created -------------------------------------------

template <typename P>
void NegBinomialParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& param = Param<P>(*attrs);
  std::ostringstream os;
  if (!(param.k > 0)) os << "k (" << param.k << ") must be positive";
  if (!(param.p > 0 && param.p <= 1)) os << "p (" << param.p << ") must be in (0, 1]";
  FailIfAny(os);
}

template <typename P>
void GenNegBinomialParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const P& param = Param<P>(*attrs);
  std::ostringstream os;
  if (!(param.mu >= 0) || !std::isfinite(param.mu))
    os << "mu (" << param.mu << ") must be non-negative";
  if (!(param.alpha >= 0) || !std::isfinite(param.alpha))
    os << "alpha (" << param.alpha << ") must be non-negative";
  FailIfAny(os);
}

const char* const kNegBinomialInputs[] = {"k", "p"};
const char* const kGenNegBinomialInputs[] = {"mu", "alpha"};

// ---- multinomial: outputs, shapes, types, gradient ---------------------------------------------

uint32_t MultinomialOutputs(const NodeAttrs& attrs) {
  return Param<SampleMultinomialParam>(attrs).get_prob ? 2 : 1;
}

/*! \brief data (..., k) and `shape` give samples (and log-probabilities) of shape
 *  data.shape[:-1] + shape, (1,) when that is empty (MXNet's rule). */
bool MultinomialShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const SampleMultinomialParam& param = Param<SampleMultinomialParam>(attrs);
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  SYMNET_CHECK(x.ndim() >= 1)
      << "_sample_multinomial: data must have an axis of categories (its last), not shape " << x;
  std::vector<int64_t> dims(x.begin(), x.end() - 1);
  if (param.shape.ndim_known()) dims.insert(dims.end(), param.shape.begin(), param.shape.end());
  if (dims.empty()) dims.push_back(1);
  const Shape o(dims);
  const int64_t k = x.back();
  SYMNET_CHECK(k > 0 || o.Size() == 0)
      << "_sample_multinomial: data's last axis (the categories) is empty";
  const auto t = static_cast<DType>(param.dtype);
  const int64_t exact = t == DType::kUint8     ? 255
                        : t == DType::kFloat16 ? 2048
                        : t == DType::kFloat32 ? (int64_t{1} << 24)
                                               : INT64_MAX;
  SYMNET_CHECK(k - 1 <= exact) << "_sample_multinomial: dtype " << t
                               << " cannot hold the indices of " << k
                               << " categories exactly; use int32";
  for (size_t i = 0; i < out->size(); ++i) AssignOutShape(out, i, o);
  return true;
}

/*! \brief Samples of the dtype attribute; log-probabilities of data's (float) dtype. */
bool MultinomialType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(out, 0, static_cast<DType>(Param<SampleMultinomialParam>(attrs).dtype), false);
  if (out->size() > 1) {
    AssignType(out, 1, (*in)[0], false);
    AssignType(in, 0, (*out)[1], true);
  }
  if ((*in)[0] != DType::kUnknown && !IsFloatType((*in)[0]))
    throw InferError{true, 0, "a float dtype (float16, bfloat16, float32 or float64)",
                     DTypeName((*in)[0])};
  return (*in)[0] != DType::kUnknown;
}

/*! \brief Only the log-probabilities have a gradient; it needs data and the samples drawn. */
std::vector<NodeEntry> MultinomialGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  if (!Param<SampleMultinomialParam>(n->attrs).get_prob) return NoInputGradients(n, ograds);
  return MakeGradNode("_backward_sample_multinomial", n,
                      {ograds[1], n->inputs[0], NodeEntry{n, 0, 0}}, ParamsOf(n));
}

}  // namespace

// ---- negative binomial -----------------------------------------------------------------------

SYMNET_REGISTER_RANDOM(_random_negative_binomial, RandomNegBinomialParam,
                       NegBinomialParser<RandomNegBinomialParam>,
                       RandomType<RandomNegBinomialParam>,
                       (RandomCompute<cpu, RandomNegBinomialParam, NegBinomialSampler>),
                       "Samples of the negative binomial distribution of k and p: "
                       "Poisson(Gamma(k, (1 - p) / p)), as floats (mean k (1 - p) / p).")
    .add_alias("random_negative_binomial");

SYMNET_REGISTER_RANDOM_LIKE(_random_negative_binomial_like, RandomNegBinomialLikeParam,
                            NegBinomialParser<RandomNegBinomialLikeParam>,
                            (RandomCompute<cpu, RandomNegBinomialLikeParam, NegBinomialSampler>),
                            "Samples of the negative binomial distribution of k and p, as "
                            "floats of the input's shape and dtype.");

SYMNET_REGISTER_SAMPLE(_sample_negative_binomial, kNegBinomialInputs,
                       (SampleCompute<cpu, NegBinomialSampler>),
                       "Samples of negative binomial distributions, one per element of k and p, "
                       "as floats; k <= 0 or p outside (0, 1] gives NaN.")
    .add_argument("k", "NDArray-or-Symbol", "Limits of unsuccessful experiments.")
    .add_argument("p", "NDArray-or-Symbol", "Failure probabilities in each experiment.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_negative_binomial");

// ---- generalized negative binomial -----------------------------------------------------------

SYMNET_REGISTER_RANDOM(_random_generalized_negative_binomial, RandomGenNegBinomialParam,
                       GenNegBinomialParser<RandomGenNegBinomialParam>,
                       RandomType<RandomGenNegBinomialParam>,
                       (RandomCompute<cpu, RandomGenNegBinomialParam, GenNegBinomialSampler>),
                       "Samples of the generalized negative binomial distribution of mean mu and "
                       "dispersion alpha: Poisson(Gamma(1 / alpha, mu alpha)), Poisson(mu) for "
                       "alpha = 0, as floats (variance mu + alpha mu^2).")
    .add_alias("random_generalized_negative_binomial");

SYMNET_REGISTER_RANDOM_LIKE(
    _random_generalized_negative_binomial_like, RandomGenNegBinomialLikeParam,
    GenNegBinomialParser<RandomGenNegBinomialLikeParam>,
    (RandomCompute<cpu, RandomGenNegBinomialLikeParam, GenNegBinomialSampler>),
    "Samples of the generalized negative binomial distribution of mean mu and dispersion alpha, "
    "as floats of the input's shape and dtype.");

SYMNET_REGISTER_SAMPLE(_sample_generalized_negative_binomial, kGenNegBinomialInputs,
                       (SampleCompute<cpu, GenNegBinomialSampler>),
                       "Samples of generalized negative binomial distributions, one per element "
                       "of mu and alpha, as floats; a negative mu or alpha gives NaN.")
    .add_argument("mu", "NDArray-or-Symbol", "Means of the distributions.")
    .add_argument("alpha", "NDArray-or-Symbol",
                  "Alpha (dispersion) parameters of the distributions.")
    .add_arguments(ParamDocs<SampleParam>())
    .add_alias("sample_generalized_negative_binomial");

// ---- multinomial -----------------------------------------------------------------------------

SYMNET_REGISTER_OP(_sample_multinomial)
    .describe(
        "Category indices drawn from multinomial distributions, one per row of data's last axis "
        "(probabilities summing to 1), `shape` samples each; with get_prob, also each sample's "
        "log-probability, whose gradient is head_grad / p at the sampled category.")
    .set_num_inputs(1)
    .set_num_outputs(MultinomialOutputs)
    .set_attr<TDrawsRandom>("TDrawsRandom", true)
    .set_attr_parser(ParamParser<SampleMultinomialParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Distribution probabilities. Must sum to one on the last axis.")
    .add_arguments(ParamDocs<SampleMultinomialParam>())
    .set_attr<FInferShape>("FInferShape", MultinomialShape)
    .set_attr<FInferType>("FInferType", MultinomialType)
    .set_attr<FGradient>("FGradient", MultinomialGradient)
    .set_attr<FCompute>("FCompute<cpu>", MultinomialCompute<cpu>)
    .add_alias("sample_multinomial");

SYMNET_REGISTER_OP(_backward_sample_multinomial)
    .set_num_inputs(3)
    .set_attr_parser(ParamParser<SampleMultinomialParam>)
    .add_arguments(ParamDocs<SampleMultinomialParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", MultinomialGradCompute<cpu>);

}  // namespace ops
}  // namespace symnet
