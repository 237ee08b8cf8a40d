/*! \brief GPU kernels of the random samplers: sample_op.h's samplers with xpu = gpu, drawing the
 *  same counter-based numbers as the CPU. */
#include "sample_op.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_random_uniform)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomUniformParam, UniformSampler, true>);
SYMNET_REGISTER_OP(_random_normal)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomNormalParam, NormalSampler>);
SYMNET_REGISTER_OP(_random_gamma)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomGammaParam, GammaSampler>);
SYMNET_REGISTER_OP(_random_exponential)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomLambdaParam, ExponentialSampler>);
SYMNET_REGISTER_OP(_random_poisson)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomLambdaParam, PoissonSampler>);
SYMNET_REGISTER_OP(_random_randint).set_attr<FCompute>("FCompute<gpu>", RandintCompute<gpu>);

SYMNET_REGISTER_OP(_random_uniform_like)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomUniformLikeParam, UniformSampler, true>);
SYMNET_REGISTER_OP(_random_normal_like)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomNormalLikeParam, NormalSampler>);
SYMNET_REGISTER_OP(_random_gamma_like)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomGammaLikeParam, GammaSampler>);
SYMNET_REGISTER_OP(_random_exponential_like)
    .set_attr<FCompute>("FCompute<gpu>",
                        RandomCompute<gpu, RandomLambdaLikeParam, ExponentialSampler>);
SYMNET_REGISTER_OP(_random_poisson_like)
    .set_attr<FCompute>("FCompute<gpu>", RandomCompute<gpu, RandomLambdaLikeParam, PoissonSampler>);

SYMNET_REGISTER_OP(_sample_uniform)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, UniformSampler, true>);
SYMNET_REGISTER_OP(_sample_normal)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, NormalSampler>);
SYMNET_REGISTER_OP(_sample_gamma)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, GammaSampler>);
SYMNET_REGISTER_OP(_sample_exponential)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, ExponentialSampler>);
SYMNET_REGISTER_OP(_sample_poisson)
    .set_attr<FCompute>("FCompute<gpu>", SampleCompute<gpu, PoissonSampler>);

}  // namespace ops
}  // namespace symnet
