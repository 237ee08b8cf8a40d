/*! \brief where (where.h): shape and type rules, the gradient node, the registrations. */
#include "where.h"

#include <string>

namespace symnet {
namespace ops {

namespace {

/*! \brief Runs an element-wise rule on x, y (inputs 1 and 2) and the output; a mismatch is
 *  reported against the node's own input numbering. */
template <typename V, typename Rule>
bool OnXY(const NodeAttrs& attrs, std::vector<V>* in, std::vector<V>* out, Rule rule) {
  std::vector<V> xy{(*in)[1], (*in)[2]};
  bool known;
  try {
    known = rule(attrs, &xy, out);
  } catch (InferError& e) {
    if (e.is_input) ++e.index;
    throw;
  }
  (*in)[1] = xy[0];
  (*in)[2] = xy[1];
  return known;
}

/*! \brief x, y and the output share a shape; the condition has it too, or is 1-D over its first
 *  dim. An unknown condition is taken to have x's shape. As MXNet's infer_shape_partial, the
 *  output is decided only once the condition's shape is fully known. */
bool WhereShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape s;  // x, y and (what is known of) the output
  for (int i = 1; i <= 2; ++i) ShapeAssign(&s, (*in)[i]);
  ShapeAssign(&s, (*out)[0]);
  if (!s.ndim_known()) return false;
  AssignInShape(in, 1, s);
  AssignInShape(in, 2, s);
  const Shape& c = (*in)[0];
  if (c.ndim_known() && c.ndim() == 1 && s.ndim() > 1) {
    SYMNET_CHECK(c[0] < 0 || s[0] < 0 || c[0] == s[0])
        << "where: a 1-D condition selects rows of x, so its length must be x's first dim: "
           "condition "
        << c << ", x and y " << s;
  } else if (c.ndim_known() && c.ndim() != s.ndim()) {
    SYMNET_THROW << "where: the condition of shape " << c << " must have the shape of x and y " << s
                 << ", or be 1-D of length " << s[0];
  } else {
    AssignInShape(in, 0, s);
  }
  if (!(*in)[0].is_known()) return false;
  AssignOutShape(out, 0, s);
  return s.is_known();
}

/*! \brief x, y and the output share a dtype; the condition may have any. */
bool WhereType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return OnXY(attrs, in, out, ElemwiseType);
}

/*!
 * \brief The backward node reads (dy, condition) and writes (dx, dy of y). It is made without
 *  the usual link to the forward node: through that link inference would give backward output
 *  i the shape of forward input i, and input 0 is the condition. Its own rules say instead:
 *  both outputs are shaped and typed as dy.
 */
std::vector<NodeEntry> WhereGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  NodePtr b = CreateOpNode(Op::Get("_backward_where"), n->attrs.name + "_backward", {},
                           {ograds[0], n->inputs[0]});
  return {NoGradient(), NodeEntry{b, 0, 0}, NodeEntry{b, 1, 0}};
}

bool WhereGradShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  for (size_t i = 0; i < out->size(); ++i) AssignOutShape(out, i, (*in)[0]);
  return (*in)[0].is_known();
}

bool WhereGradType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  for (size_t i = 0; i < out->size(); ++i) AssignType(out, i, (*in)[0], false);
  return (*in)[0] != DType::kUnknown;
}

std::vector<std::string> WhereInputs(const NodeAttrs&) { return {"condition", "x", "y"}; }

}  // namespace

SYMNET_REGISTER_OP(where)
    .describe(
        "Takes x where the condition is non-zero and y elsewhere. The condition has the shape "
        "of x (and y), or is 1-D with one entry per row (first-dim index) of x; its dtype is "
        "free. The gradient goes to x or y by the same choice; the condition gets none.")
    .set_num_inputs(3)
    .add_argument("condition", "NDArray-or-Symbol", "The condition array.")
    .add_argument("x", "NDArray-or-Symbol", "Where the condition is non-zero.")
    .add_argument("y", "NDArray-or-Symbol", "Where the condition is zero.")
    .set_attr<FListInputNames>("FListInputNames", WhereInputs)
    .set_attr<FInferShape>("FInferShape", WhereShape)
    .set_attr<FInferType>("FInferType", WhereType)
    .set_attr<FGradient>("FGradient", WhereGradient)
    .set_attr<FCompute>("FCompute<cpu>", WhereForward<cpu>);

SYMNET_REGISTER_OP(_backward_where)
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FInferShape>("FInferShape", WhereGradShape)
    .set_attr<FInferType>("FInferType", WhereGradType)
    .set_attr<FCompute>("FCompute<cpu>", WhereBackward<cpu>);

}  // namespace ops
}  // namespace symnet
