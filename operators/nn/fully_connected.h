/*! \brief FullyConnected's parameter and input-as-matrix rule (shared by the CPU and GPU kernels).
 */
#ifndef SYMNET_OPERATORS_NN_FULLY_CONNECTED_H_
#define SYMNET_OPERATORS_NN_FULLY_CONNECTED_H_

#include <utility>

#include "../operator_common.h"

namespace symnet {
namespace ops {

struct FullyConnectedParam : public dmlc::Parameter<FullyConnectedParam> {
  int num_hidden;
  bool no_bias;
  bool flatten;
  DMLC_DECLARE_PARAMETER(FullyConnectedParam) {
    DMLC_DECLARE_FIELD(num_hidden)
        .set_lower_bound(1)
        .describe("Number of hidden nodes of the output.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable bias parameter.");
    DMLC_DECLARE_FIELD(flatten).set_default(true).describe(
        "Whether to collapse all but the first axis of the input data tensor.");
  }
};

/*! \brief Rows and columns of the input seen as a matrix. */
inline std::pair<int64_t, int64_t> InputMatrix(const FullyConnectedParam& p, const Shape& x) {
  if (p.flatten) return {x[0], x.ProdRange(1, x.ndim())};
  return {x.ProdRange(0, x.ndim() - 1), x[x.ndim() - 1]};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_FULLY_CONNECTED_H_
