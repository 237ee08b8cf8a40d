/*! \brief The registration pieces LayerNorm, InstanceNorm and GroupNorm share. */
#include "norm_kernels.h"

namespace symnet {
namespace ops {

FInferType NormType(const char* op) {
  return [op](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    if (!ElemwiseType(attrs, in, out)) return false;
    SYMNET_CHECK(IsFloatType((*in)[0]))
        << op << " expects floating-point data, got " << DTypeName((*in)[0]);
    return true;
  };
}

FGradient NormGradient(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    auto g = MakeGradNode(
        backward_op, n,
        {ograds[0], n->inputs[0], n->inputs[1], NodeEntry{n, 1, 0}, NodeEntry{n, 2, 0}},
        ParamsOf(n));
    return std::vector<NodeEntry>{g[0], g[1], g[2]};
  };
}

}  // namespace ops
}  // namespace symnet
