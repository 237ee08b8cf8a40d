/*!
 * \brief signsgd_update and signum_update (MXNet's): steps of size lr in the direction of the
 *  sign of the gradient (signSGD) or of its momentum average (Signum, Bernstein et al. 2018).
 */
#include "signum.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SignSGDParam);
DMLC_REGISTER_PARAMETER(SignumParam);

SYMNET_REGISTER_OP(signsgd_update)
    .describe("signSGD: weight = (1 - lr*wd)*weight - lr*sign(clip(rescale_grad*grad)).")
    .SYMNET_UPDATE_OP(SignSGDParam, "ww", 'w', "weight", "grad")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", SignumCompute<false>);

SYMNET_REGISTER_OP(signum_update)
    .describe(
        "Signum: mom = momentum*mom - (1-momentum)*(wd*weight + clip(rescale_grad*grad)); "
        "weight = (1 - lr*wd_lh)*weight + lr*sign(mom). mom is updated in place.")
    .SYMNET_UPDATE_OP(SignumParam, "wwW", 'w', "weight", "grad", "mom")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", SignumCompute<true>);

}  // namespace ops
}  // namespace symnet
