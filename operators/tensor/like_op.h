/*! \brief What the "_like" ops that read only the shape of their second input (broadcast_like,
 *  reshape_like) share: input names and the type rule. */
#ifndef SYMNET_OPERATORS_TENSOR_LIKE_OP_H_
#define SYMNET_OPERATORS_TENSOR_LIKE_OP_H_

#include <string>
#include <vector>

#include "../operator_common.h"

namespace symnet {
namespace ops {

inline std::vector<std::string> LhsRhsNames(const NodeAttrs&) { return {"lhs", "rhs"}; }

/*! \brief The output has lhs's dtype; rhs may have any dtype, since its values are never read. */
inline bool LhsType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(out, 0, (*in)[0], false);
  AssignType(in, 0, (*out)[0], true);
  return (*out)[0] != DType::kUnknown;
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_LIKE_OP_H_
