/*! \brief reverse (alias flip): its axis rule, shape rule and registration (reverse.h). */
#include "reverse.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ReverseParam);

std::vector<bool> ReversedAxes(const ReverseParam& p, const Shape& in) {
  std::vector<bool> flip(in.ndim(), false);
  for (int64_t a : p.axis) {
    SYMNET_CHECK(a >= 0 && a < in.ndim())
        << "reverse: axis " << a << " is out of range for an input of shape " << in
        << " (expected 0 to " << in.ndim() - 1 << "; negative axes are not accepted, as in "
        << "MXNet 1.9.1)";
    flip[a] = !flip[a];  // twice is not at all, as in MXNet
  }
  return flip;
}

namespace {

bool ReverseShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const bool known = ElemwiseShape(attrs, in, out);
  const Shape& s = (*in)[0];
  if (s.ndim_known()) ReversedAxes(Param<ReverseParam>(attrs), s);  // the axis check
  return known;
}

}  // namespace

SYMNET_REGISTER_OP(reverse)
    .add_alias("flip")
    .describe("Reverses the order of the elements along each axis in `axis`; the shape stays.")
    .set_attr_parser(ParamParser<ReverseParam>)
    .add_arguments(ParamDocs<ReverseParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ReverseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_reverse"))
    .set_attr<FCompute>("FCompute<cpu>", ReverseCompute<cpu>);

SYMNET_REGISTER_OP(_backward_reverse)
    .set_attr_parser(ParamParser<ReverseParam>)
    .add_arguments(ParamDocs<ReverseParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", ReverseCompute<cpu>);

}  // namespace ops
}  // namespace symnet
