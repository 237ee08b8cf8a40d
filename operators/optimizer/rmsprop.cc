/*!
 * \brief rmsprop_update and rmspropalex_update (MXNet's): g = clip(rescale_grad*grad + wd*w);
 *  RMSProp: n = (1-gamma1)*g^2 + gamma1*n; w -= lr*g/sqrt(n + epsilon).
 *  Centered (Graves): n as above, gbar = (1-gamma1)*g + gamma1*gbar;
 *  delta = gamma2*delta - lr*g/sqrt(n - gbar^2 + epsilon); w += delta.
 *  Both clip the new weight to [-clip_weights, clip_weights] when clip_weights >= 0.
 */
#include "rmsprop.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(RMSPropParam);
DMLC_REGISTER_PARAMETER(RMSPropAlexParam);

SYMNET_REGISTER_OP(rmsprop_update)
    .describe(
        "RMSProp (Tieleman & Hinton): n = (1-gamma1)*g^2 + gamma1*n; "
        "weight -= lr*g/sqrt(n + epsilon), with g = clip(rescale_grad*grad + wd*weight). "
        "n is updated in place.")
    .SYMNET_UPDATE_OP(RMSPropParam, "wwW", 'w', "weight", "grad", "n")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", RMSPropCompute<false>);

SYMNET_REGISTER_OP(rmspropalex_update)
    .describe(
        "Centered RMSProp (Graves 2013): n and g average the squared gradient and the gradient "
        "with decay gamma1; delta = gamma2*delta - lr*grad/sqrt(n - g^2 + epsilon); "
        "weight += delta. n, g and delta are updated in place.")
    .SYMNET_UPDATE_OP(RMSPropAlexParam, "wwWWW", 'w', "weight", "grad", "n", "g", "delta")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", RMSPropCompute<true>);

}  // namespace ops
}  // namespace symnet
