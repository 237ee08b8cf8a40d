/*! \brief The _random_pdf_<dist> ops (pdf_op.h): shape and type rules and registrations, with
 *  MXNet 1.9.1's names, aliases (random_pdf_<dist>) and argument names. */
#include "pdf_op.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(PdfParam);

namespace {

/*!
 * \brief The parameters share one shape P; the sample's shape starts with P (dirichlet: with
 *  P[:-1], and ends with P[-1]); the output has the sample's shape (dirichlet: without its last
 *  dim). Without a known sample shape, a scalar distribution's output shape is the sample's.
 */
template <bool vector>
bool PdfShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape p;
  for (size_t i = 1; i < in->size(); ++i) ShapeAssign(&p, (*in)[i]);
  for (size_t i = 1; i < in->size(); ++i) AssignInShape(in, i, p);
  if (!vector && !(*in)[0].ndim_known() && (*out)[0].ndim_known()) AssignInShape(in, 0, (*out)[0]);
  const Shape& s = (*in)[0];
  if (!s.is_known() || !p.is_known()) return false;
  const int pd = p.ndim() - (vector ? 1 : 0);
  bool prefix = s.ndim() >= p.ndim() && pd >= 0;
  for (int d = 0; prefix && d < pd; ++d) prefix = s[d] == p[d];
  if (vector && prefix) prefix = s[s.ndim() - 1] == p[p.ndim() - 1];
  SYMNET_CHECK(prefix) << "pdf: the sample's shape " << s << " must "
                       << (vector ? "start with the parameters' shape without its last dim and "
                                    "end with that dim, for parameters of shape "
                                  : "start with the parameters' shape ")
                       << p;
  Shape o;
  for (int d = 0; d < s.ndim() - (vector ? 1 : 0); ++d) o.push_back(s[d]);
  if (!o.ndim_known()) o = Shape::Scalar();
  AssignOutShape(out, 0, o);
  return true;
}

template <int num_params>
std::vector<std::string> PdfInputs(const char* a, const char* b) {
  std::vector<std::string> names = {"sample", a};
  if (num_params > 1) names.push_back(b);
  return names;
}

}  // namespace

#define SYMNET_REGISTER_PDF(DIST, D, ARG0, ARG1, DOC)                                            \
  SYMNET_REGISTER_OP(_random_pdf_##DIST)                                                         \
      .add_alias("random_pdf_" #DIST)                                                            \
      .describe(DOC)                                                                             \
      .set_num_inputs(1 + D::kParams)                                                            \
      .set_attr_parser(ParamParser<PdfParam>)                                                    \
      .add_argument("sample", "NDArray-or-Symbol", "The samples, of shape P + T.")               \
      .add_argument(ARG0, "NDArray-or-Symbol", "A parameter of the distributions (shape P).")    \
      .set_attr<FListInputNames>(                                                                \
          "FListInputNames", [](const NodeAttrs&) { return PdfInputs<D::kParams>(ARG0, ARG1); }) \
      .set_attr<FInferShape>("FInferShape", PdfShape<false>)                                     \
      .set_attr<FInferType>("FInferType", ElemwiseType)                                          \
      .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_pdf_" #DIST))               \
      .set_attr<FCompute>("FCompute<cpu>", PdfForward<cpu, D>);                                  \
  SYMNET_REGISTER_OP(_backward_pdf_##DIST)                                                       \
      .set_num_inputs(2 + D::kParams)                                                            \
      .set_num_outputs(1 + D::kParams)                                                           \
      .set_attr_parser(ParamParser<PdfParam>)                                                    \
      .add_arguments(ParamDocs<PdfParam>())                                                      \
      .set_attr<TIsBackward>("TIsBackward", true)                                                \
      .set_attr<FCompute>("FCompute<cpu>", PdfBackward<cpu, D>)

// the second parameter's argument and is_log, in MXNet's order (a second statement: only the
// two-parameter distributions have one)
#define SYMNET_PDF_SECOND_ARG(DIST, ARG1) \
  SYMNET_REGISTER_OP(_random_pdf_##DIST)  \
      .add_argument(ARG1, "NDArray-or-Symbol", "The distributions' other parameter (shape P).")
#define SYMNET_PDF_IS_LOG(DIST) \
  SYMNET_REGISTER_OP(_random_pdf_##DIST).add_arguments(ParamDocs<PdfParam>())

SYMNET_REGISTER_PDF(uniform, PdfUniform, "low", "high",
                    "The density of uniform distributions on [low, high): 1/(high - low).");
SYMNET_REGISTER_PDF(normal, PdfNormal, "mu", "sigma",
                    "The density of normal distributions of mean mu and standard deviation sigma.");
SYMNET_REGISTER_PDF(gamma, PdfGamma, "alpha", "beta",
                    "The density of gamma distributions of shape alpha and rate beta: beta^alpha "
                    "x^(alpha-1) exp(-beta x) / Gamma(alpha).");
SYMNET_REGISTER_PDF(exponential, PdfExponential, "lam", "",
                    "The density of exponential distributions of rate lam: lam exp(-lam x).");
SYMNET_REGISTER_PDF(poisson, PdfPoisson, "lam", "",
                    "The probability of x under Poisson distributions of rate lam: lam^x "
                    "exp(-lam) / x!.");
SYMNET_REGISTER_PDF(negative_binomial, PdfNegativeBinomial, "k", "p",
                    "The probability of x failures before the k-th success of probability p: "
                    "Gamma(x+k) / (x! Gamma(k)) p^k (1-p)^x.");
SYMNET_REGISTER_PDF(generalized_negative_binomial, PdfGeneralizedNegativeBinomial, "mu", "alpha",
                    "The probability of x under negative binomial distributions of mean mu and "
                    "dispersion alpha (k = 1/alpha, p = 1/(1 + mu alpha)).");

SYMNET_PDF_SECOND_ARG(uniform, "high");
SYMNET_PDF_SECOND_ARG(normal, "sigma");
SYMNET_PDF_SECOND_ARG(gamma, "beta");
SYMNET_PDF_SECOND_ARG(negative_binomial, "p");
SYMNET_PDF_SECOND_ARG(generalized_negative_binomial, "alpha");
SYMNET_PDF_IS_LOG(uniform);
SYMNET_PDF_IS_LOG(normal);
SYMNET_PDF_IS_LOG(gamma);
SYMNET_PDF_IS_LOG(exponential);
SYMNET_PDF_IS_LOG(poisson);
SYMNET_PDF_IS_LOG(negative_binomial);
SYMNET_PDF_IS_LOG(generalized_negative_binomial);

SYMNET_REGISTER_OP(_random_pdf_dirichlet)
    .add_alias("random_pdf_dirichlet")
    .describe(
        "The density of Dirichlet distributions of concentration alpha (shape P + (k,)) at the "
        "sample vectors (shape P + T + (k,)); the output has shape P + T.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<PdfParam>)
    .add_argument("sample", "NDArray-or-Symbol", "The sample vectors, of shape P + T + (k,).")
    .add_argument("alpha", "NDArray-or-Symbol", "The concentrations, of shape P + (k,).")
    .add_arguments(ParamDocs<PdfParam>())
    .set_attr<FInferShape>("FInferShape", PdfShape<true>)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_pdf_dirichlet"))
    .set_attr<FCompute>("FCompute<cpu>", DirichletPdfForward<cpu>);

SYMNET_REGISTER_OP(_backward_pdf_dirichlet)
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<PdfParam>)
    .add_arguments(ParamDocs<PdfParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", DirichletPdfBackward<cpu>);

}  // namespace ops
}  // namespace symnet
