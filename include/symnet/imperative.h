/*! \brief Runs one op immediately on NDArrays (what symnet.nd.<op> and optimizers call). */
#ifndef SYMNET_IMPERATIVE_H_
#define SYMNET_IMPERATIVE_H_

#include <map>
#include <string>
#include <vector>

#include "symnet/ndarray.h"
#include "symnet/node.h"

namespace symnet {

/*!
 * \brief Invokes op `op_name` on `inputs`. Output shapes and dtypes are inferred; outputs given
 *  in `outputs` (which may alias inputs, e.g. an optimizer writing the weight) are written, the
 *  rest are allocated. Returns the visible outputs. Runs in autograd's training mode, and is
 *  recorded while autograd records (symnet/autograd.h).
 */
std::vector<NDArray> Invoke(const std::string& op_name,
                            const std::map<std::string, std::string>& params,
                            const std::vector<NDArray>& inputs, std::vector<NDArray> outputs = {});

/*!
 * \brief Runs op node `n` (attributes parsed; its graph inputs are ignored) on `inputs`, in
 *  training mode when `is_train`. Like Invoke, but returns every output, hidden ones included,
 *  and records nothing: what autograd's backward runs gradient nodes with.
 */
std::vector<NDArray> InvokeNode(const NodePtr& n, const std::vector<NDArray>& inputs,
                                std::vector<NDArray> outputs, bool is_train);

}  // namespace symnet

#endif  // SYMNET_IMPERATIVE_H_
