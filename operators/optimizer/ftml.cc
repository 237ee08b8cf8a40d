/*!
 * \brief ftml_update (MXNet's): Follow the Moving Leader, an Adam-like rule whose weight is
 *  -z/d; the states d, v and z are updated in place.
 */
#include "ftml.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(FtmlParam);

SYMNET_REGISTER_OP(ftml_update)
    .describe(
        "FTML: with g = clip(rescale_grad*grad + wd*weight), v = beta2*v + (1-beta2)*g^2, "
        "d_t = (1-beta1^t)/lr * (sqrt(v/(1-beta2^t)) + epsilon), z = beta1*z + (1-beta1)*g - "
        "(d_t - beta1*d)*weight, d = d_t; the new weight is -z/d_t. d, v and z are updated in "
        "place.")
    .SYMNET_UPDATE_OP(FtmlParam, "wwWWW", 'w', "weight", "grad", "d", "v", "z")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", FtmlCompute<>);

}  // namespace ops
}  // namespace symnet
