/*!
 * \brief reset_arrays (MXNet's): sets every input array to zero in one call, so that Gluon can
 *  zero many gradients at once. The arrays are mutated in place; the op has no outputs.
 */
#ifndef SYMNET_OPERATORS_TENSOR_RESET_ARRAYS_H_
#define SYMNET_OPERATORS_TENSOR_RESET_ARRAYS_H_

#include <vector>

#include "../operator_common.h"

namespace symnet {
namespace ops {

struct ResetArraysParam : public dmlc::Parameter<ResetArraysParam> {
  int num_arrays;
  DMLC_DECLARE_PARAMETER(ResetArraysParam) {
    DMLC_DECLARE_FIELD(num_arrays).set_lower_bound(1).describe("The number of arrays to reset.");
  }
};

/*! \brief Zeroes each input in place (a memset on its device, so any dtype); the inputs may
 *  have different dtypes and shapes. Any device. */
void ResetArraysCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>&, const std::vector<TBlob>&);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_RESET_ARRAYS_H_
