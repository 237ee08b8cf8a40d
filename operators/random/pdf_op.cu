/*! \brief GPU kernels of the _random_pdf_<dist> ops and their gradients: pdf_op.h's functors,
 *  one thread per parameter index (the CPU's arithmetic, in double). */
#include "pdf_op.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

#define SYMNET_PDF_GPU(DIST, D)                                                                   \
  SYMNET_REGISTER_OP(_random_pdf_##DIST).set_attr<FCompute>("FCompute<gpu>", PdfForward<gpu, D>); \
  SYMNET_REGISTER_OP(_backward_pdf_##DIST).set_attr<FCompute>("FCompute<gpu>", PdfBackward<gpu, D>)

SYMNET_PDF_GPU(uniform, PdfUniform);
SYMNET_PDF_GPU(normal, PdfNormal);
SYMNET_PDF_GPU(gamma, PdfGamma);
SYMNET_PDF_GPU(exponential, PdfExponential);
SYMNET_PDF_GPU(poisson, PdfPoisson);
SYMNET_PDF_GPU(negative_binomial, PdfNegativeBinomial);
SYMNET_PDF_GPU(generalized_negative_binomial, PdfGeneralizedNegativeBinomial);
SYMNET_REGISTER_OP(_random_pdf_dirichlet)
    .set_attr<FCompute>("FCompute<gpu>", DirichletPdfForward<gpu>);
SYMNET_REGISTER_OP(_backward_pdf_dirichlet)
    .set_attr<FCompute>("FCompute<gpu>", DirichletPdfBackward<gpu>);

}  // namespace ops
}  // namespace symnet
