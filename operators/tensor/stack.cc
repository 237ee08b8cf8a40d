/*! \brief stack: its shape rule and registration (stack.h). */
#include "stack.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(StackParam);

int StackAxis(const StackParam& p, const Shape& in) {
  const int nd = in.ndim() + 1;  // the output's ndim
  SYMNET_CHECK(p.axis >= -nd && p.axis < nd)
      << "stack: axis " << p.axis << " is out of range for inputs of shape " << in << " (expected "
      << -nd << " to " << nd - 1 << ")";
  return p.axis < 0 ? p.axis + nd : p.axis;
}

namespace {

bool StackShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const StackParam& p = Param<StackParam>(attrs);
  Shape s;  // the one shape of every input; a disagreement is reported below, naming the input
  for (const auto& x : *in) ShapeAssign(&s, x);
  if (!s.ndim_known()) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignInShape(in, i, s);
  const int a = StackAxis(p, s);
  std::vector<int64_t> dims = s.ToVector();
  dims.insert(dims.begin() + a, p.num_args);
  const Shape o(dims.begin(), dims.end());
  AssignOutShape(out, 0, o);
  return o.is_known();
}

uint32_t NumArgs(const NodeAttrs& a) {
  return static_cast<uint32_t>(Param<StackParam>(a).num_args);
}

}  // namespace

SYMNET_REGISTER_OP(stack)
    .describe(
        "Joins num_args arrays of one shape along a new axis: two (2, 3) arrays stacked on axis "
        "1 give (2, 2, 3), output[:, k] being input k.")
    .set_key_var_num_args("num_args")
    .set_num_inputs(NumArgs)
    .set_attr_parser(ParamParser<StackParam>)
    .add_arguments(ParamDocs<StackParam>())
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to stack.")
    .set_attr<FInferShape>("FInferShape", StackShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_stack"))
    .set_attr<FCompute>("FCompute<cpu>", StackCompute<cpu>);

SYMNET_REGISTER_OP(_backward_stack)
    .set_num_outputs(NumArgs)
    .set_attr_parser(ParamParser<StackParam>)
    .add_arguments(ParamDocs<StackParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", StackGradCompute<cpu>);

}  // namespace ops
}  // namespace symnet
