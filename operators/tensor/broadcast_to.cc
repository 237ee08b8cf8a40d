/*! \brief broadcast_to, broadcast_like and broadcast_axis (broadcast_axes): MXNet 1.9.1's
 *  attributes and shape rules; the kernels are broadcast_to.h's view copies. */
#include "broadcast_to.h"

#include <istream>
#include <ostream>
#include <sstream>
#include <string>

#include "like_op.h"

namespace symnet {
namespace ops {

/*!
 * \brief MXNet's "Shape or None" attribute: a tuple, or None (here a Shape of unknown ndim).
 *  Its own type, not dmlc::optional<Shape>: that optional swaps its value's bytes, which a Shape
 *  (a vector with inline storage) does not survive.
 */
struct OptionalAxes {
  Shape value;
  bool has_value() const { return value.ndim_known(); }
};
std::ostream& operator<<(std::ostream& os, const OptionalAxes& a) { return os << a.value; }
std::istream& operator>>(std::istream& is, OptionalAxes& a) { return is >> a.value; }

}  // namespace ops
}  // namespace symnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(symnet::ops::OptionalAxes, "Shape or None");
}  // namespace dmlc

namespace symnet {
namespace ops {

struct BroadcastToParam : public dmlc::Parameter<BroadcastToParam> {
  Shape shape;
  DMLC_DECLARE_PARAMETER(BroadcastToParam) {
    DMLC_DECLARE_FIELD(shape)
        .set_default(Shape::Scalar())
        .describe(
            "The output shape, with the input's ndim. A 0 keeps the input's dim; any other value "
            "must equal the input's dim, or the input's dim must be 1.");
  }
};
DMLC_REGISTER_PARAMETER(BroadcastToParam);

struct BroadcastLikeParam : public dmlc::Parameter<BroadcastLikeParam> {
  OptionalAxes lhs_axes, rhs_axes;
  DMLC_DECLARE_PARAMETER(BroadcastLikeParam) {
    DMLC_DECLARE_FIELD(lhs_axes)
        .set_default(OptionalAxes())
        .describe(
            "The axes of lhs to broadcast (each of size 1; negative values count from the back). "
            "Unless both lhs_axes and rhs_axes are given, lhs is broadcast to rhs's whole shape.");
    DMLC_DECLARE_FIELD(rhs_axes)
        .set_default(OptionalAxes())
        .describe("The axes of rhs whose sizes lhs_axes take, one per entry of lhs_axes.");
  }
};
DMLC_REGISTER_PARAMETER(BroadcastLikeParam);

struct BroadcastAxisParam : public dmlc::Parameter<BroadcastAxisParam> {
  Shape axis, size;
  DMLC_DECLARE_PARAMETER(BroadcastAxisParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(Shape::Scalar())
        .describe(
            "The axes to broadcast, each of size 1 in the input (0 to ndim-1; MXNet 1.9.1 takes no "
            "negative axes here).");
    DMLC_DECLARE_FIELD(size)
        .set_default(Shape::Scalar())
        .describe("The size each axis is broadcast to, one per entry of axis.");
  }
};
DMLC_REGISTER_PARAMETER(BroadcastAxisParam);

BroadcastView CompactView(const BroadcastView& v) {
  BroadcastView c{Shape::Scalar(), Shape::Scalar()};
  int last = -1;  // kind of the last kept dim: 0 copied, 1 broadcast
  for (int d = 0; d < v.dst.ndim(); ++d) {
    const int64_t s = v.src[d], t = v.dst[d];
    if (s == 1 && t == 1) continue;
    const int kind = s == t ? 0 : 1;
    if (kind == last) {
      // merge into the previous dim: row-major order runs on without a jump
      const int k = c.dst.ndim() - 1;
      c.src[k] *= s;
      c.dst[k] *= t;
    } else {
      c.src.push_back(s);
      c.dst.push_back(t);
      last = kind;
    }
  }
  if (c.dst.ndim() == 0) {
    c.src.push_back(1);
    c.dst.push_back(1);
  }
  return c;
}

namespace {

/*! \brief Throws dmlc::ParamError (the node names itself) when any entry of `s` is negative. */
void CheckNonNegative(const char* op, const char* field, const Shape& s) {
  for (int64_t d : s) {
    if (d < 0) {
      std::ostringstream os;
      os << op << ": " << field << " " << s << " has a negative entry; sizes must be >= 0";
      throw dmlc::ParamError(os.str());
    }
  }
}

void BroadcastToParser(NodeAttrs* attrs) {
  ParamParser<BroadcastToParam>(attrs);
  CheckNonNegative("broadcast_to", "shape", Param<BroadcastToParam>(*attrs).shape);
}

void BroadcastLikeParser(NodeAttrs* attrs) {
  ParamParser<BroadcastLikeParam>(attrs);
  const BroadcastLikeParam& p = Param<BroadcastLikeParam>(*attrs);
  if (!p.lhs_axes.has_value() || !p.rhs_axes.has_value()) return;
  std::ostringstream os;
  if (p.lhs_axes.value.ndim() != p.rhs_axes.value.ndim()) {
    os << "broadcast_like: lhs_axes " << p.lhs_axes.value << " and rhs_axes " << p.rhs_axes.value
       << " must have the same length";
  } else if (p.lhs_axes.value.ndim() == 0) {
    os << "broadcast_like: lhs_axes and rhs_axes must not be empty (leave both out to broadcast "
          "to rhs's whole shape)";
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

void BroadcastAxisParser(NodeAttrs* attrs) {
  ParamParser<BroadcastAxisParam>(attrs);
  const BroadcastAxisParam& p = Param<BroadcastAxisParam>(*attrs);
  if (p.axis.ndim() != p.size.ndim()) {
    std::ostringstream os;
    os << "broadcast_axis: axis " << p.axis << " and size " << p.size
       << " must have the same length";
    throw dmlc::ParamError(os.str());
  }
  CheckNonNegative("broadcast_axis", "size", p.size);
}

bool BroadcastToShapeRule(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const Shape& target = Param<BroadcastToParam>(attrs).shape;
  SYMNET_CHECK(s.ndim() == target.ndim())
      << "broadcast_to: the input of shape " << s << " cannot be broadcast to " << target
      << ": shape must have the input's " << s.ndim() << " dims (0 keeps a dim)";
  Shape o = target;
  for (int d = 0; d < s.ndim(); ++d) {
    if (target[d] == 0) {
      o[d] = s[d];
    } else if (s[d] >= 0) {
      SYMNET_CHECK(s[d] == target[d] || s[d] == 1)
          << "broadcast_to: the input of shape " << s << " cannot be broadcast to " << target
          << ": dim " << d << " has size " << s[d] << ", expected 1 or " << target[d];
    }
  }
  AssignOutShape(out, 0, o);
  return o.is_known();
}

/*! \brief Axis `a` of an ndim-dim array, negative values counting from the back. */
int LikeAxis(const char* field, int64_t a, const Shape& of) {
  const int64_t nd = of.ndim();
  SYMNET_CHECK(a >= -nd && a < nd)
      << "broadcast_like: " << field << " entry " << a << " is out of range for a shape " << of
      << " (expected " << -nd << " to " << nd - 1 << ")";
  return static_cast<int>(a < 0 ? a + nd : a);
}

bool BroadcastLikeShapeRule(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const Shape &l = (*in)[0], &r = (*in)[1];
  if (!l.is_known() || !r.is_known()) return false;
  const BroadcastLikeParam& p = Param<BroadcastLikeParam>(attrs);
  Shape o = l;
  if (!p.lhs_axes.has_value() || !p.rhs_axes.has_value()) {
    SYMNET_CHECK(l.ndim() == r.ndim())
        << "broadcast_like: lhs of shape " << l << " cannot be broadcast like rhs of shape " << r
        << ": they must have the same ndim (or give lhs_axes and rhs_axes)";
    for (int d = 0; d < l.ndim(); ++d) {
      SYMNET_CHECK(l[d] == r[d] || l[d] == 1)
          << "broadcast_like: lhs of shape " << l << " cannot be broadcast like rhs of shape " << r
          << ": dim " << d << " has size " << l[d] << ", expected 1 or " << r[d];
      o[d] = r[d];
    }
  } else {
    const Shape &la = p.lhs_axes.value, &ra = p.rhs_axes.value;
    for (int i = 0; i < la.ndim(); ++i) {
      const int from = LikeAxis("lhs_axes", la[i], l), to = LikeAxis("rhs_axes", ra[i], r);
      SYMNET_CHECK(l[from] == 1) << "broadcast_like: lhs axis " << la[i] << " of shape " << l
                                 << " has size " << l[from] << ", but only an axis of size 1 "
                                 << "can take the size " << r[to] << " of rhs axis " << ra[i];
      o[from] = r[to];
    }
  }
  AssignOutShape(out, 0, o);
  return true;
}

bool BroadcastAxisShapeRule(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.is_known()) return false;
  const BroadcastAxisParam& p = Param<BroadcastAxisParam>(attrs);
  Shape o = s;
  // axis by axis as MXNet does, so each axis is checked against what the earlier ones left
  for (int i = 0; i < p.axis.ndim(); ++i) {
    const int64_t a = p.axis[i];
    SYMNET_CHECK(a >= 0 && a < s.ndim())
        << "broadcast_axis: axis " << a << " is out of range for an input of shape " << s
        << " (expected 0 to " << s.ndim() - 1 << "; negative axes are not accepted, as in "
        << "MXNet 1.9.1)";
    SYMNET_CHECK(o[a] == 1) << "broadcast_axis: axis " << a << " of the input of shape " << s
                            << " has size " << o[a] << "; only an axis of size 1 can be broadcast";
    o[a] = p.size[i];
  }
  AssignOutShape(out, 0, o);
  return true;
}

/*! \brief lhs's gradient is dy summed back onto lhs; rhs gets none (its values are unused). */
std::vector<NodeEntry> BroadcastLikeGradient(const NodePtr& n, const std::vector<NodeEntry>& g) {
  std::vector<NodeEntry> grads = MakeGradNode("_backward_broadcast_like", n, {g[0]}, ParamsOf(n));
  grads.push_back(NoGradient());
  return grads;
}

}  // namespace

SYMNET_REGISTER_OP(broadcast_to)
    .describe(
        "Broadcasts the input to `shape` (same ndim): dims of size 1 are repeated, a 0 in "
        "shape keeps the input's dim.")
    .set_attr_parser(BroadcastToParser)
    .add_arguments(ParamDocs<BroadcastToParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", BroadcastToShapeRule)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_broadcast_to"))
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewForward<cpu, OutputShapeView>);

SYMNET_REGISTER_OP(_backward_broadcast_to)
    .set_attr_parser(BroadcastToParser)
    .add_arguments(ParamDocs<BroadcastToParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewBackward<cpu, OutputShapeView>);

SYMNET_REGISTER_OP(broadcast_like)
    .describe(
        "Broadcasts lhs to rhs's shape, or, given lhs_axes and rhs_axes, broadcasts each listed "
        "lhs axis (of size 1) to the size of the matching rhs axis. Only rhs's shape is used.")
    .set_num_inputs(2)
    .set_attr_parser(BroadcastLikeParser)
    .add_arguments(ParamDocs<BroadcastLikeParam>())
    .add_argument("lhs", "NDArray-or-Symbol", "The input to broadcast.")
    .add_argument("rhs", "NDArray-or-Symbol", "The array whose shape lhs takes.")
    .set_attr<FListInputNames>("FListInputNames", LhsRhsNames)
    .set_attr<FInferShape>("FInferShape", BroadcastLikeShapeRule)
    .set_attr<FInferType>("FInferType", LhsType)
    .set_attr<FGradient>("FGradient", BroadcastLikeGradient)
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewForward<cpu, OutputShapeView>);

SYMNET_REGISTER_OP(_backward_broadcast_like)
    .set_attr_parser(BroadcastLikeParser)
    .add_arguments(ParamDocs<BroadcastLikeParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewBackward<cpu, OutputShapeView>);

SYMNET_REGISTER_OP(broadcast_axis)
    .add_alias("broadcast_axes")
    .describe(
        "Broadcasts the input along the listed axes (each of size 1) to the matching sizes: "
        "axis=(0, 2), size=(2, 3) takes (1, 4, 1) to (2, 4, 3).")
    .set_attr_parser(BroadcastAxisParser)
    .add_arguments(ParamDocs<BroadcastAxisParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", BroadcastAxisShapeRule)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_broadcast_axis"))
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewForward<cpu, OutputShapeView>);

SYMNET_REGISTER_OP(_backward_broadcast_axis)
    .set_attr_parser(BroadcastAxisParser)
    .add_arguments(ParamDocs<BroadcastAxisParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewBackward<cpu, OutputShapeView>);

}  // namespace ops
}  // namespace symnet
