/*! \brief Runs one op immediately on NDArrays (what symnet.nd.<op> and optimizers call). */
#ifndef SYMNET_IMPERATIVE_H_
#define SYMNET_IMPERATIVE_H_

#include <map>
#include <string>
#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

/*!
 * \brief Invokes op `op_name` on `inputs`. Output shapes and dtypes are inferred; outputs given
 *  in `outputs` (which may alias inputs, e.g. an optimizer writing the weight) are written, the
 *  rest are allocated. Returns the visible outputs.
 */
std::vector<NDArray> Invoke(const std::string& op_name,
                            const std::map<std::string, std::string>& params,
                            const std::vector<NDArray>& inputs, std::vector<NDArray> outputs = {});

}  // namespace symnet

#endif  // SYMNET_IMPERATIVE_H_
