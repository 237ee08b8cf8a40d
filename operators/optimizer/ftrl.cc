/*!
 * \brief ftrl_update (MXNet's): FTRL-Proximal with L1 (lamda1) and L2 (wd) regularization and
 *  per-coordinate learning rates lr/(beta + sqrt(n)); z and n are updated in place.
 */
#include "ftrl.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(FtrlParam);

SYMNET_REGISTER_OP(ftrl_update)
    .describe(
        "FTRL-Proximal: with g = clip(rescale_grad*grad), z += g - (sqrt(n + g^2) - sqrt(n)) * "
        "weight/lr; n += g^2; weight = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) where "
        "|z| > lamda1, else 0. z and n are updated in place.")
    .SYMNET_UPDATE_OP(FtrlParam, "wwWW", 'w', "weight", "grad", "z", "n")
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", FtrlCompute<>);

}  // namespace ops
}  // namespace symnet
