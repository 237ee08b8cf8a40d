/*! \brief Collectives across the devices of one process (data-parallel training). */
#ifndef SYMNET_COLLECTIVES_H_
#define SYMNET_COLLECTIVES_H_

#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

/*!
 * \brief In-place sum across devices: per_device[d][k] is array k of device d (same shapes and
 *  dtypes on every device); afterwards every per_device[d][k] holds the sum over d. GPU arrays
 *  use NCCL (one group call, on each device's stream, no host sync); CPU arrays are summed
 *  on the host. All devices must be of one type.
 */
void AllReduceSum(const std::vector<std::vector<NDArray>>& per_device);

}  // namespace symnet

#endif  // SYMNET_COLLECTIVES_H_
