/*!
 * \brief LAMB (You et al. 2019, MXNet's lamb_update_phase1/2 and mp_ forms). Phase 1 updates the
 *  moments and returns the direction g = mean_hat/(sqrt(var_hat) + epsilon) + wd*w; the caller
 *  takes r1 = ||w|| and r2 = ||g||; phase 2 steps w -= lr * (r1/r2) * g (lr alone when r1 or r2
 *  is 0), r1 first bounded to [lower_bound, upper_bound].
 */
#include "lamb.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(LambPhase1Param);
DMLC_REGISTER_PARAMETER(LambPhase2Param);

SYMNET_REGISTER_OP(lamb_update_phase1)
    .describe(
        "LAMB phase 1: with g = clip(rescale_grad*grad), mean = beta1*mean + (1-beta1)*g; var = "
        "beta2*var + (1-beta2)*g^2 (both in place); returns mean_hat/(sqrt(var_hat) + epsilon) + "
        "wd*weight, the hats dividing by 1 - beta^t with bias_correction.")
    .SYMNET_UPDATE_OP(LambPhase1Param, "wwWW", 'w', "weight", "grad", "mean", "var")
    .set_attr<FCompute>("FCompute<cpu>", LambPhase1Compute<false>);

SYMNET_REGISTER_OP(mp_lamb_update_phase1)
    .describe(
        "Multi-precision LAMB phase 1: float32 mean and var (in place) and the float32 master "
        "weight32 (for the wd term); returns the float32 direction.")
    .SYMNET_UPDATE_OP(LambPhase1Param, "wwFFf", 'f', "weight", "grad", "mean", "var", "weight32")
    .set_attr<FCompute>("FCompute<cpu>", LambPhase1Compute<true>);

SYMNET_REGISTER_OP(lamb_update_phase2)
    .describe(
        "LAMB phase 2: r1 (the weight's norm, (1,)) bounded by lower_bound/upper_bound when they "
        "are >= 0; weight -= lr*(r1/r2)*g, or lr*g when r1 or r2 is 0.")
    .SYMNET_UPDATE_OP(LambPhase2Param, "wwss", 'w', "weight", "g", "r1", "r2")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", LambPhase2Compute<false>);

SYMNET_REGISTER_OP(mp_lamb_update_phase2)
    .describe(
        "Multi-precision LAMB phase 2: steps the float32 master weight32 (in place) with the "
        "float32 direction g; the 16-bit weight receives the rounded master weight.")
    .SYMNET_UPDATE_OP(LambPhase2Param, "wfssF", 'w', "weight", "g", "r1", "r2", "weight32")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", LambPhase2Compute<true>);

}  // namespace ops
}  // namespace symnet
