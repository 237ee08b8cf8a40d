/*!
 * \brief _identity_with_attr_like_rhs (MXNet's): returns lhs unchanged, but its shape and dtype
 *  are tied to rhs's, so inference can carry rhs's known shape to lhs (MXNet's backward graphs
 *  use it to give a gradient the shape of its variable). rhs gets a zero gradient.
 */
#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

namespace {

std::vector<NodeEntry> IdentityLikeRhsGradient(const NodePtr& n,
                                               const std::vector<NodeEntry>& ograds) {
  std::vector<NodeEntry> g = MakeGradNode("_copy", n, {ograds[0]});
  g.push_back(MakeGradNode("zeros_like", n, {n->inputs[1]}, {}, "rhs_backward")[0]);
  return g;
}

}  // namespace

SYMNET_REGISTER_OP(_identity_with_attr_like_rhs)
    .describe("Returns lhs; lhs, rhs and the output share one shape and dtype (for inference).")
    .set_num_inputs(2)
    .add_argument("lhs", "NDArray-or-Symbol", "The array returned.")
    .add_argument("rhs", "NDArray-or-Symbol", "The array whose shape and dtype lhs must have.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", IdentityLikeRhsGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

}  // namespace ops
}  // namespace symnet
