/*! \brief Pad (alias pad): registration, shape rule and MXNet 1.9.1's limits (pad.h). */
#include "pad.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(PadParam);

PadGeo MakePadGeo(const PadParam& p, const Shape& x) {
  const int nd = x.ndim();
  // MXNet's kernels exist for 4-D and 5-D data only; padding other shapes would be a superset
  // nobody's MXNet JSON can use
  SYMNET_CHECK(nd == 4 || nd == 5) << "Pad supports only 4-D (N, C, H, W) or 5-D (N, C, D, H, W) "
                                   << "data, got shape " << x;
  const Shape& w = p.pad_width;
  SYMNET_CHECK(w.ndim_known() && w.ndim() == 2 * nd)
      << "Pad: pad_width " << w << " must have 2 * ndim = " << 2 * nd
      << " entries (before and after for each axis) for data of shape " << x;
  SYMNET_CHECK(w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0)
      << "Pad: pad_width " << w << " pads the batch or channel axis; only the spatial axes "
      << "(2 and up) may be padded, so its first 4 entries must be 0";
  PadGeo g;
  g.planes = x[0] * x[1];
  g.mode = p.mode;
  g.value = p.constant_value;
  const int off = 5 - nd;  // 4-D data: a leading spatial dim of 1
  for (int i = 0; i < 3; ++i) {
    const int d = i - off + 2;  // the data axis of spatial dim i
    const bool real = i >= off;
    g.in[i] = real ? x[d] : 1;
    g.before[i] = real ? w[2 * d] : 0;
    g.after[i] = real ? w[2 * d + 1] : 0;
    SYMNET_CHECK(g.before[i] >= 0 && g.after[i] >= 0)
        << "Pad: pad_width " << w << " has a negative width";
    if (real && p.mode == kPadReflect)
      SYMNET_CHECK(g.before[i] < g.in[i] && g.after[i] < g.in[i])
          << "Pad: mode='reflect' needs widths below the axis length (a single reflection); "
          << "axis " << d << " of data " << x << " has length " << g.in[i] << ", pad_width " << w;
    if (real && p.mode == kPadEdge)
      SYMNET_CHECK(g.in[i] > 0 || (g.before[i] == 0 && g.after[i] == 0))
          << "Pad: mode='edge' cannot pad axis " << d << " of data " << x
          << ", which is empty (no edge element to repeat)";
    g.out[i] = g.in[i] + g.before[i] + g.after[i];
  }
  return g;
}

namespace {

bool PadShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  const PadGeo g = MakePadGeo(Param<PadParam>(attrs), x);
  Shape o = x;
  for (int i = 5 - x.ndim(); i < 3; ++i) o[x.ndim() - 3 + i] = g.out[i];
  AssignOutShape(out, 0, o);
  return o.is_known();
}

}  // namespace

SYMNET_REGISTER_OP(Pad)
    .add_alias("pad")
    .describe(
        "Pads the spatial axes of 4-D (N, C, H, W) or 5-D (N, C, D, H, W) data with a constant, "
        "the edge element, or the reflection about the edge (widths below the axis length). "
        "pad_width lists (before, after) per axis; those of axes 0 and 1 must be 0. The "
        "gradient sums the output gradient over the positions each input element fills.")
    .set_attr_parser(ParamParser<PadParam>)
    .add_argument("data", "NDArray-or-Symbol", "4-D or 5-D data.")
    .add_arguments(ParamDocs<PadParam>())
    .set_attr<FInferShape>("FInferShape", PadShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_Pad"))
    .set_attr<FCompute>("FCompute<cpu>", PadForward<cpu>);

SYMNET_REGISTER_OP(_backward_Pad)
    .set_attr_parser(ParamParser<PadParam>)
    .add_arguments(ParamDocs<PadParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", PadBackward<cpu>);

}  // namespace ops
}  // namespace symnet
