/*! \brief norm: the L1 or L2 norm over axes (MXNet's attributes), and its gradient. */
#include "norm.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(NormParam);

namespace {

void NormParser(NodeAttrs* attrs) {
  ParamParser<NormParam>(attrs);
  const NormParam& p = Param<NormParam>(*attrs);
  std::ostringstream os;
  if (p.ord != 1 && p.ord != 2) {
    os << "ord must be 1 or 2, not " << p.ord;
  } else if (p.out_dtype.has_value()) {
    os << "out_dtype is not supported (the norm has the input's dtype); cast the result instead";
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

bool NormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].is_known()) return false;
  AssignOutShape(out, 0, OutputShape(NormAxes(Param<NormParam>(attrs)), (*in)[0]));
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(norm)
    .describe(
        "The L1 (ord=1) or L2 (ord=2) norm over the given axes. Its gradient is sign(x) or "
        "x / norm, and 0 where the L2 norm is 0.")
    .set_attr_parser(NormParser)
    .add_arguments(ParamDocs<NormParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", NormShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseInOut("_backward_norm"))
    .set_attr<FCompute>("FCompute<cpu>", NormCompute<cpu>);

SYMNET_REGISTER_OP(_backward_norm)
    .set_num_inputs(3)
    .set_attr_parser(NormParser)
    .add_arguments(ParamDocs<NormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", NormGradCompute<cpu>);

}  // namespace ops
}  // namespace symnet
