/*! \brief expand_dims and squeeze: add or drop dims of size 1. The bytes do not change, so both
 *  are a copy (in place when the planner allows) and their gradient is `_backward_reshape`. */
#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

struct ExpandDimsParam : public dmlc::Parameter<ExpandDimsParam> {
  int axis;
  DMLC_DECLARE_PARAMETER(ExpandDimsParam) {
    DMLC_DECLARE_FIELD(axis).describe(
        "Where the new dim of size 1 goes, in [-ndim-1, ndim]; negative values count from the "
        "back.");
  }
};
DMLC_REGISTER_PARAMETER(ExpandDimsParam);

struct SqueezeParam : public dmlc::Parameter<SqueezeParam> {
  Shape axis;
  DMLC_DECLARE_PARAMETER(SqueezeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(Shape()).describe(
        "The dims to drop, each of size 1; None (the default) drops every dim of size 1. "
        "Negative values count from the back.");
  }
};
DMLC_REGISTER_PARAMETER(SqueezeParam);

namespace {

bool ExpandDimsShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const int axis = Param<ExpandDimsParam>(attrs).axis;
  const int nd = s.ndim();
  SYMNET_CHECK(axis >= -nd - 1 && axis <= nd)
      << "expand_dims: axis " << axis << " is out of range for an input of shape " << s
      << " (expected " << -nd - 1 << " to " << nd << ")";
  const int a = axis < 0 ? axis + nd + 1 : axis;
  auto dims = s.ToVector();
  dims.insert(dims.begin() + a, 1);
  AssignOutShape(out, 0, Shape(dims.begin(), dims.end()));
  return s.is_known();
}

bool SqueezeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.is_known()) return false;
  const SqueezeParam& p = Param<SqueezeParam>(attrs);
  const int nd = s.ndim();
  std::vector<bool> drop(nd, false);
  if (p.axis.ndim_known()) {
    for (auto a : p.axis) {
      SYMNET_CHECK(a >= -nd && a < nd)
          << "squeeze: axis " << a << " is out of range for an input of shape " << s;
      const int i = static_cast<int>(a < 0 ? a + nd : a);
      SYMNET_CHECK(s[i] == 1) << "squeeze: axis " << a << " of an input of shape " << s
                              << " has size " << s[i] << ", not 1";
      drop[i] = true;
    }
  } else {
    for (int i = 0; i < nd; ++i) drop[i] = s[i] == 1;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < nd; ++i)
    if (!drop[i]) dims.push_back(s[i]);
  if (dims.empty()) dims.push_back(1);  // MXNet 1.x (no numpy shapes) keeps one dim
  AssignOutShape(out, 0, Shape(dims.begin(), dims.end()));
  return true;
}

std::vector<NodeEntry> ReshapeGrad(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("_backward_reshape", n, {g[0]});
}

}  // namespace

SYMNET_REGISTER_OP(expand_dims)
    .describe("Inserts a dim of size 1 at `axis`.")
    .set_attr_parser(ParamParser<ExpandDimsParam>)
    .add_arguments(ParamDocs<ExpandDimsParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ExpandDimsShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeGrad)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(squeeze)
    .describe("Drops dims of size 1 (those in `axis`, or all of them).")
    .set_attr_parser(ParamParser<SqueezeParam>)
    .add_arguments(ParamDocs<SqueezeParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", SqueezeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeGrad)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

}  // namespace ops
}  // namespace symnet
