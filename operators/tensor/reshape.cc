/*! \brief The ops that change only the shape: Reshape (with MXNet's special values 0, -1, -2, -3,
 *  -4), Flatten, expand_dims, squeeze and reshape_like. The bytes do not change, so each is a copy
 *  (in place when the planner allows) and their gradient is `_backward_reshape`. */
#include "elemwise_kernels.h"
#include "like_op.h"

namespace symnet {
namespace ops {

struct ReshapeParam : public dmlc::Parameter<ReshapeParam> {
  Shape shape;
  bool reverse;
  DMLC_DECLARE_PARAMETER(ReshapeParam) {
    DMLC_DECLARE_FIELD(shape).set_default(Shape()).describe(
        "The target shape. Special values: 0 copies the input dim, -1 infers one dim, -2 copies "
        "all remaining dims, -3 merges two consecutive dims, -4 splits a dim into the next two.");
    DMLC_DECLARE_FIELD(reverse).set_default(false).describe(
        "Apply the special values from right to left.");
  }
};
DMLC_REGISTER_PARAMETER(ReshapeParam);

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

struct ReshapeLikeParam : public dmlc::Parameter<ReshapeLikeParam> {
  dmlc::optional<int> lhs_begin, lhs_end, rhs_begin, rhs_end;
  DMLC_DECLARE_PARAMETER(ReshapeLikeParam) {
    DMLC_DECLARE_FIELD(lhs_begin)
        .set_default(dmlc::optional<int>())
        .describe("The first lhs dim replaced (None: 0); negative values count from the back.");
    DMLC_DECLARE_FIELD(lhs_end)
        .set_default(dmlc::optional<int>())
        .describe(
            "The lhs dim the replaced range stops before (None: lhs's ndim); negative values count "
            "from the back.");
    DMLC_DECLARE_FIELD(rhs_begin)
        .set_default(dmlc::optional<int>())
        .describe("The first rhs dim copied (None: 0); negative values count from the back.");
    DMLC_DECLARE_FIELD(rhs_end)
        .set_default(dmlc::optional<int>())
        .describe(
            "The rhs dim the copied range stops before (None: rhs's ndim); negative values count "
            "from the back.");
  }
};
DMLC_REGISTER_PARAMETER(ReshapeLikeParam);

/*! \brief Resolves MXNet's reshape codes against an input shape (left to right). */
Shape ResolveReshape(const Shape& target, const Shape& in) {
  Shape out = Shape::Scalar();
  int infer = -1;
  int src = 0;
  const int n = target.ndim();
  auto bad = [&](const char* why) -> Shape {
    SYMNET_THROW << "cannot reshape " << in << " to " << target << ": " << why;
  };
  for (int i = 0; i < n; ++i) {
    const int64_t t = target[i];
    if (t > 0) {
      out.push_back(t);
      ++src;
    } else if (t == 0) {
      if (src >= in.ndim()) return bad("0 refers past the last input dim");
      out.push_back(in[src++]);
    } else if (t == -1) {
      if (infer >= 0) return bad("more than one -1");
      infer = out.ndim();
      out.push_back(1);
      ++src;
    } else if (t == -2) {
      while (src < in.ndim()) out.push_back(in[src++]);
    } else if (t == -3) {
      if (src + 1 >= in.ndim()) return bad("-3 needs two input dims");
      out.push_back(Shape::MulElements(in[src], in[src + 1], in));
      src += 2;
    } else if (t == -4) {
      if (i + 2 >= n || src >= in.ndim()) return bad("-4 needs a dim and two following values");
      int64_t a = target[i + 1], b = target[i + 2];
      const int64_t d = in[src++];
      if (a == -1 && b > 0) a = d / b;  // at most one -1 is inferred
      if (b == -1 && a > 0) b = d / a;
      if (a <= 0 || b <= 0 || Shape::MulElements(a, b, target) != d)
        return bad("-4 split does not match the dim (positive values, at most one -1)");
      out.push_back(a);
      out.push_back(b);
      i += 2;
    } else {
      return bad("unknown special value");
    }
  }
  if (infer >= 0) {
    int64_t known = 1;
    for (int i = 0; i < out.ndim(); ++i)
      if (i != infer) known = Shape::MulElements(known, out[i], target);
    if (known == 0 || in.Size() % known != 0) return bad("the size does not divide");
    out[infer] = in.Size() / known;
  }
  if (out.Size() != in.Size()) return bad("the number of elements differs");
  return out;
}

namespace {

bool ReshapeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ReshapeParam& p = Param<ReshapeParam>(attrs);
  if (!(*in)[0].is_known()) return false;
  SYMNET_CHECK(p.shape.ndim_known()) << "Reshape needs a target 'shape'";
  if (!p.reverse) {
    AssignOutShape(out, 0, ResolveReshape(p.shape, (*in)[0]));
  } else {
    const auto tv = p.shape.ToVector();
    Shape rt(tv.rbegin(), tv.rend());
    const auto iv = (*in)[0].ToVector();
    Shape ri(iv.rbegin(), iv.rend());
    const auto ov = ResolveReshape(rt, ri).ToVector();
    AssignOutShape(out, 0, Shape(ov.rbegin(), ov.rend()));
  }
  return true;
}

bool FlattenShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.is_known()) return false;
  SYMNET_CHECK(s.ndim() >= 1) << "Flatten needs an input with at least one dim";
  AssignOutShape(out, 0, Shape{s[0], s.ProdRange(1, s.ndim())});
  return true;
}

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

/*!
 * \brief [begin, end) of reshape_like's range over the `side` input of shape `s`: None is the
 *  start or the end, negative values count from the back. As in MXNet 1.9.1 the range must be
 *  inside the dims and not empty.
 */
void ReshapeLikeRange(const char* side, const dmlc::optional<int>& begin,
                      const dmlc::optional<int>& end, const Shape& s, int* b, int* e) {
  const int nd = s.ndim();
  *b = begin.has_value() ? begin.value() : 0;
  *e = end.has_value() ? end.value() : nd;
  if (*b < 0) *b += nd;
  if (*e < 0) *e += nd;
  SYMNET_CHECK(*b >= 0 && *e <= nd && *b < *e)
      << "reshape_like: " << side << "_begin " << begin << " and " << side << "_end " << end
      << " do not select a non-empty range of the dims of " << side << " of shape " << s;
}

bool ReshapeLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &l = (*in)[0], &r = (*in)[1];
  if (!l.is_known() || !r.is_known()) return false;
  const ReshapeLikeParam& p = Param<ReshapeLikeParam>(attrs);
  int lb = 0, le = 0, rb = 0, re = 0;
  ReshapeLikeRange("lhs", p.lhs_begin, p.lhs_end, l, &lb, &le);
  ReshapeLikeRange("rhs", p.rhs_begin, p.rhs_end, r, &rb, &re);
  // lhs's dims before and after its range stay; the range becomes rhs's range
  Shape o = Shape::Scalar();
  for (int d = 0; d < lb; ++d) o.push_back(l[d]);
  for (int d = rb; d < re; ++d) o.push_back(r[d]);
  for (int d = le; d < l.ndim(); ++d) o.push_back(l[d]);
  SYMNET_CHECK(o.Size() == l.Size())
      << "reshape_like: lhs of shape " << l << " cannot take the shape " << o
      << " (from rhs of shape " << r << "): they have different sizes";
  AssignOutShape(out, 0, o);
  return true;
}

/*! \brief lhs's gradient is dy in lhs's shape; rhs gets none (only its shape is used). */
std::vector<NodeEntry> ReshapeLikeGradient(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return {MakeGradNode("_backward_reshape", n, {g[0]})[0], NoGradient()};
}

/*! \brief The shape-only ops' gradient: the output gradient's bytes in the input's shape
 *  (`_backward_reshape` takes no attributes, so none are passed). */
std::vector<NodeEntry> ReshapeGradient(const NodePtr& n, const std::vector<NodeEntry>& g) {
  return MakeGradNode("_backward_reshape", n, {g[0]});
}

}  // namespace

SYMNET_REGISTER_OP(Reshape)
    .add_alias("reshape")
    .describe("Gives the data a new shape without changing its contents.")
    .set_attr_parser(ParamParser<ReshapeParam>)
    .add_arguments(ParamDocs<ReshapeParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ReshapeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(Flatten)
    .add_alias("flatten")
    .describe("Flattens the input to 2-D: (d0, d1*d2*...*dk).")
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", FlattenShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(expand_dims)
    .describe("Inserts a dim of size 1 at `axis`.")
    .set_attr_parser(ParamParser<ExpandDimsParam>)
    .add_arguments(ParamDocs<ExpandDimsParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ExpandDimsShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(squeeze)
    .describe("Drops dims of size 1 (those in `axis`, or all of them).")
    .set_attr_parser(ParamParser<SqueezeParam>)
    .add_arguments(ParamDocs<SqueezeParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", SqueezeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(reshape_like)
    .describe(
        "Gives lhs the shape of rhs (or replaces lhs's dims [lhs_begin, lhs_end) by rhs's dims "
        "[rhs_begin, rhs_end)) without changing its contents; the sizes must agree.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<ReshapeLikeParam>)
    .add_arguments(ParamDocs<ReshapeLikeParam>())
    .add_argument("lhs", "NDArray-or-Symbol", "The input to reshape.")
    .add_argument("rhs", "NDArray-or-Symbol", "The array whose shape (or part of it) lhs takes.")
    .set_attr<FListInputNames>("FListInputNames", LhsRhsNames)
    .set_attr<FInferShape>("FInferShape", ReshapeLikeShape)
    .set_attr<FInferType>("FInferType", LhsType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ReshapeLikeGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

/*! \brief Gradient of any reshape: the same bytes with the forward input's shape. */
SYMNET_REGISTER_OP(_backward_reshape)
    .set_attr_parser([](NodeAttrs*) {})
    .add_arguments(ParamDocs<ReshapeParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

}  // namespace ops
}  // namespace symnet
