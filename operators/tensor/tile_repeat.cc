/*! \brief tile and repeat: MXNet 1.9.1's attributes and shape rules, their broadcast views
 *  (tile_repeat.h) and registrations. */
#include "tile_repeat.h"

#include <dmlc/optional.h>

#include <algorithm>
#include <sstream>

namespace symnet {
namespace ops {

struct TileParam : public dmlc::Parameter<TileParam> {
  Shape reps;
  DMLC_DECLARE_PARAMETER(TileParam) {
    DMLC_DECLARE_FIELD(reps).describe(
        "How many times each dim is repeated. A shorter reps is padded with 1s at the front; "
        "a longer one pads the input's shape with 1s at the front. A 0 gives an empty dim.");
  }
};
DMLC_REGISTER_PARAMETER(TileParam);

struct RepeatParam : public dmlc::Parameter<RepeatParam> {
  int repeats;
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(RepeatParam) {
    DMLC_DECLARE_FIELD(repeats).describe("How many times each element is repeated (>= 0).");
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>())
        .describe(
            "The axis along which elements are repeated (negative values count from the back); "
            "None repeats the elements of the flattened input into a 1-D output.");
  }
};
DMLC_REGISTER_PARAMETER(RepeatParam);

namespace {

void TileParser(NodeAttrs* attrs) {
  ParamParser<TileParam>(attrs);
  const Shape& reps = Param<TileParam>(*attrs).reps;
  for (int64_t r : reps) {
    if (r < 0) {
      std::ostringstream os;
      os << "tile: reps " << reps << " has a negative entry; each must be >= 0";
      throw dmlc::ParamError(os.str());
    }
  }
}

void RepeatParser(NodeAttrs* attrs) {
  ParamParser<RepeatParam>(attrs);
  const int r = Param<RepeatParam>(*attrs).repeats;
  if (r < 0) {
    std::ostringstream os;
    os << "repeat: repeats is " << r << "; it cannot be negative";
    throw dmlc::ParamError(os.str());
  }
}

bool TileShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const Shape& reps = Param<TileParam>(attrs).reps;
  const int n = std::max(s.ndim(), reps.ndim());
  const Shape ps = PadShape(s, n), pr = PadShape(reps, n);
  Shape o = Shape::Scalar();
  for (int d = 0; d < n; ++d) o.push_back(ps[d] < 0 ? -1 : Shape::MulElements(ps[d], pr[d], s));
  AssignOutShape(out, 0, o);
  return o.is_known();
}

/*! \brief repeat's axis in [0, ndim), or -1 for None (flatten). */
int RepeatAxis(const RepeatParam& p, const Shape& in) {
  if (!p.axis.has_value()) return -1;
  const int nd = in.ndim(), a = p.axis.value();
  SYMNET_CHECK(a >= -nd && a < nd)
      << "repeat: axis " << a << " is out of range for an input of "
      << "shape " << in << " (expected " << -nd << " to " << nd - 1 << ", or None to flatten)";
  return a < 0 ? a + nd : a;
}

bool RepeatShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.is_known()) return false;
  const RepeatParam& p = Param<RepeatParam>(attrs);
  const int a = RepeatAxis(p, s);
  Shape o;
  if (p.repeats == 0) {
    o = Shape{0};  // MXNet 1.9.1 gives a 1-D empty array for 0 repeats, whatever the axis
  } else if (a < 0) {
    o = Shape{Shape::MulElements(s.Size(), p.repeats, s)};
  } else {
    o = s;
    o[a] = Shape::MulElements(s[a], p.repeats, s);
  }
  AssignOutShape(out, 0, o);
  return true;
}

}  // namespace

BroadcastView TileView(const NodeAttrs& attrs, const Shape& in, const Shape&) {
  const Shape& reps = Param<TileParam>(attrs).reps;
  const int n = std::max(in.ndim(), reps.ndim());
  const Shape ps = PadShape(in, n), pr = PadShape(reps, n);
  BroadcastView v{Shape::Scalar(), Shape::Scalar()};
  for (int d = 0; d < n; ++d) {
    v.src.push_back(1);
    v.src.push_back(ps[d]);
    v.dst.push_back(pr[d]);
    v.dst.push_back(ps[d]);
  }
  return v;
}

BroadcastView RepeatView(const NodeAttrs& attrs, const Shape& in, const Shape&) {
  const RepeatParam& p = Param<RepeatParam>(attrs);
  const int a = RepeatAxis(p, in);
  const int64_t outer = a < 0 ? 1 : in.ProdRange(0, a);
  const int64_t len = a < 0 ? in.Size() : in[a];
  const int64_t inner = a < 0 ? 1 : in.ProdRange(a + 1, in.ndim());
  return {Shape{outer, len, 1, inner}, Shape{outer, len, p.repeats, inner}};
}

SYMNET_REGISTER_OP(tile)
    .describe(
        "Repeats the whole input reps[i] times along dim i, as numpy.tile: (2, 3) tiled by "
        "(2, 2) is (4, 6), its four blocks copies of the input.")
    .set_attr_parser(TileParser)
    .add_arguments(ParamDocs<TileParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", TileShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_tile"))
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewForward<cpu, TileView>);

SYMNET_REGISTER_OP(_backward_tile)
    .set_attr_parser(TileParser)
    .add_arguments(ParamDocs<TileParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewBackward<cpu, TileView>);

SYMNET_REGISTER_OP(repeat)
    .describe(
        "Repeats each element `repeats` times along `axis`, as numpy.repeat: [1, 2] becomes "
        "[1, 1, 2, 2]. Without an axis the input is flattened first.")
    .set_attr_parser(RepeatParser)
    .add_arguments(ParamDocs<RepeatParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", RepeatShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_repeat"))
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewForward<cpu, RepeatView>);

SYMNET_REGISTER_OP(_backward_repeat)
    .set_attr_parser(RepeatParser)
    .add_arguments(ParamDocs<RepeatParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BroadcastViewBackward<cpu, RepeatView>);

}  // namespace ops
}  // namespace symnet
