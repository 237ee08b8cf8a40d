/*!
 * \brief Operator::Invoke: the C++ Operator builder's imperative call. It lives with imperative
 *  execution, not with the builder (graph layer), so graph building never depends on execution.
 */
#include "symnet/imperative.h"
#include "symnet/operator_builder.h"

namespace symnet {

std::vector<NDArray> Operator::Invoke(const std::vector<NDArray>& inputs,
                                      const std::vector<NDArray>& outputs) const {
  return symnet::Invoke(op_name_, params_, inputs, outputs);
}

}  // namespace symnet
