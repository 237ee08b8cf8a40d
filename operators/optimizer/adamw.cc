/*!
 * \brief _adamw_update and _mp_adamw_update (MXNet's contrib AdamW, also named
 *  _contrib_adamw_update / _contrib_mp_adamw_update, so mx.nd.contrib.adamw_update calls it):
 *  Adam with decoupled weight decay (Loshchilov & Hutter). With g = clip(rescale_grad*grad):
 *  mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2;
 *  w -= eta * (lr*mean/(sqrt(var) + epsilon) + wd*w). rescale_grad is a one-element array, so a
 *  loss scaler can compute it on the device; 0, inf or NaN skips the step.
 */
#include "adamw.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(AdamWParam);

SYMNET_REGISTER_OP(_adamw_update)
    .add_alias("_contrib_adamw_update")
    .describe(
        "AdamW: with g = clip(rescale_grad*grad), mean = beta1*mean + (1-beta1)*g; "
        "var = beta2*var + (1-beta2)*g^2; weight -= eta*(lr*mean/(sqrt(var) + epsilon) + "
        "wd*weight). rescale_grad is a (1,) array; when it is 0, inf or NaN nothing changes. "
        "mean and var are updated in place.")
    .SYMNET_UPDATE_OP(AdamWParam, "wwWWs", 'w', "weight", "grad", "mean", "var", "rescale_grad")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", AdamWCompute<false>);

SYMNET_REGISTER_OP(_mp_adamw_update)
    .add_alias("_contrib_mp_adamw_update")
    .describe(
        "Multi-precision AdamW: float32 mean, var and master weight32, updated in place; the "
        "16-bit weight receives the rounded master weight.")
    .SYMNET_UPDATE_OP(AdamWParam, "wwFFFs", 'w', "weight", "grad", "mean", "var", "weight32",
                      "rescale_grad")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", AdamWCompute<true>);

}  // namespace ops
}  // namespace symnet
