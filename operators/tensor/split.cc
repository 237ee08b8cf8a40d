/*! \brief SliceChannel (alias split): equal parts of one axis, each a box of the input (slice.h),
 *  so its kernels are slice's box copies. */
#include <string>
#include <vector>

#include "slice.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SplitParam);

int SplitAxis(const SplitParam& p, const Shape& in) {
  const int nd = in.ndim();
  SYMNET_CHECK(nd >= 1) << "split needs an input of at least one dim, got shape " << in;
  SYMNET_CHECK(p.axis >= -nd && p.axis < nd)
      << "split: axis " << p.axis << " is out of range for an input of shape " << in
      << " (expected " << -nd << " to " << nd - 1 << ")";
  return p.axis < 0 ? p.axis + nd : p.axis;
}

SliceBox SplitBox(const SplitParam& p, const Shape& in, int k) {
  const int a = SplitAxis(p, in);
  const int64_t part = in[a] / p.num_outputs;
  std::vector<DimRange> r(in.ndim());
  for (int d = 0; d < in.ndim(); ++d)
    r[d] = d == a ? DimRange{k * part, 1, part} : DimRange{0, 1, in[d]};
  return MakeBox(in, r);
}

namespace {

/*! \brief Works on partial shapes, both ways: the parts share one shape, the input's with the
 *  axis divided by num_outputs (or dropped, squeezed); what a part knows goes back to the input. */
bool SplitShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const SplitParam& p = Param<SplitParam>(attrs);
  const int64_t n = p.num_outputs;
  Shape known_part;  // what the outputs already know
  for (size_t k = 0; k < out->size(); ++k)
    SYMNET_CHECK(ShapeAssign(&known_part, (*out)[k]))
        << "split: the parts must share one shape, got " << known_part << " and " << (*out)[k];
  if (!(*in)[0].ndim_known() && known_part.ndim_known()) {
    // the input has the parts' dims, plus the axis where it was squeezed out
    AssignInShape(in, 0, Shape::Unknown(known_part.ndim() + (p.squeeze_axis ? 1 : 0)));
  }
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const int a = SplitAxis(p, s);
  if (known_part.ndim_known()) {
    Shape back = Shape::Unknown(s.ndim());
    for (int d = 0, j = 0; d < s.ndim(); ++d) {
      if (d == a && p.squeeze_axis) {
        back[d] = n;
        continue;
      }
      const int64_t v = known_part.ndim() > j ? known_part[j] : -1;
      back[d] = d == a ? (v >= 0 ? v * n : -1) : v;
      ++j;
    }
    AssignInShape(in, 0, back);
  }
  std::vector<int64_t> dims = s.ToVector();
  if (s[a] >= 0) {
    SYMNET_CHECK(s[a] % n == 0) << "split: num_outputs " << n << " does not divide the length "
                                << s[a] << " of axis " << p.axis << " of the input of shape " << s
                                << " into equal parts";
    SYMNET_CHECK(!p.squeeze_axis || s[a] == n)
        << "split: squeeze_axis=True needs axis " << p.axis << " of length num_outputs (" << n
        << "), but the input of shape " << s << " has " << s[a];
    dims[a] = s[a] / n;
  }
  // squeezed, the parts lose the axis; MXNet 1.x keeps no dim for a 1-D input (a scalar part)
  if (p.squeeze_axis) dims.erase(dims.begin() + a);
  const Shape part(dims.begin(), dims.end());
  for (size_t k = 0; k < out->size(); ++k) AssignOutShape(out, k, part);
  return part.is_known() && s.is_known();
}

uint32_t NumParts(const NodeAttrs& a) {
  return static_cast<uint32_t>(Param<SplitParam>(a).num_outputs);
}

/*! \brief output0, output1, ...: MXNet numbers the parts even when there is one, so a lone
 *  part is "<name>_output0" there too. */
std::vector<std::string> PartNames(const NodeAttrs& a) {
  std::vector<std::string> names;
  for (uint32_t k = 0; k < NumParts(a); ++k) names.push_back("output" + std::to_string(k));
  return names;
}

}  // namespace

SYMNET_REGISTER_OP(SliceChannel)
    .add_alias("split")
    .describe(
        "Splits the input along `axis` into num_outputs equal parts (output k holds indices "
        "[k*L/n, (k+1)*L/n)); squeeze_axis drops the axis from parts one index thick.")
    .set_num_outputs(NumParts)
    .set_attr_parser(ParamParser<SplitParam>)
    .add_arguments(ParamDocs<SplitParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FListOutputNames>("FListOutputNames", PartNames)
    .set_attr<FInferShape>("FInferShape", SplitShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_SliceChannel"))
    .set_attr<FCompute>("FCompute<cpu>", SplitForward<cpu>);

SYMNET_REGISTER_OP(_backward_SliceChannel)
    .set_num_inputs(NumParts)
    .set_attr_parser(ParamParser<SplitParam>)
    .add_arguments(ParamDocs<SplitParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", SplitBackward<cpu>);

}  // namespace ops
}  // namespace symnet
