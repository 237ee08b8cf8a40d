/*! \brief _shuffle (shuffle.h): registration. Like MXNet's, it has no gradient. */
#include "shuffle.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_shuffle)
    .describe(
        "Randomly permutes the array along its first axis (rows of a 2-D array move together); "
        "reproducible after symnet.random.seed().")
    .add_alias("shuffle")
    .set_num_inputs(1)
    .set_attr<TDrawsRandom>("TDrawsRandom", true)
    .add_argument("data", "NDArray-or-Symbol", "Data to be shuffled.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FTempSpace>("FTempSpace", ShuffleTempBytes)
    .set_attr<FCompute>("FCompute<cpu>", ShuffleCompute<cpu>);

}  // namespace ops
}  // namespace symnet
