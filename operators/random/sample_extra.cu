/*! \brief GPU kernels of sample_extra.h's samplers (xpu = gpu): the same counter-based numbers
 *  as the CPU. */
#include "sample_extra.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_random_negative_binomial)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomNegBinomialParam, NegBinomialSampler>);
SYMNET_REGISTER_OP(_random_negative_binomial_like)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomNegBinomialLikeParam, NegBinomialSampler>);
SYMNET_REGISTER_OP(_sample_negative_binomial)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, NegBinomialSampler>);

SYMNET_REGISTER_OP(_random_generalized_negative_binomial)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomGenNegBinomialParam, GenNegBinomialSampler>);
SYMNET_REGISTER_OP(_random_generalized_negative_binomial_like)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomGenNegBinomialLikeParam, GenNegBinomialSampler>);
SYMNET_REGISTER_OP(_sample_generalized_negative_binomial)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, GenNegBinomialSampler>);

SYMNET_REGISTER_OP(_sample_multinomial)
    .set_attr<FCompute>("FCompute<gpu>", MultinomialCompute<gpu>);
SYMNET_REGISTER_OP(_backward_sample_multinomial)
    .set_attr<FCompute>("FCompute<gpu>", MultinomialGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
