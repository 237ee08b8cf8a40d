/*! \brief GPU kernel of _sample_unique_zipfian: unique_zipfian.h's functor, one thread per row
 *  (the CPU's draws for the same seed). */
#include "src/device/kernel_launch.cuh"
#include "unique_zipfian.h"

namespace symnet {
namespace ops {

SYMNET_REGISTER_OP(_sample_unique_zipfian)
    .set_attr<FCompute>("FCompute<gpu>", UniqueZipfianCompute<gpu>);

}  // namespace ops
}  // namespace symnet
