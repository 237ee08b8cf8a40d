/*! \brief clip: MobileNet's relu6 (clip(x, 0, 6)) and value clamping in scripts. */
#include "clip.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ClipParam);

namespace {

/*! \brief The parameters, plus the rule dmlc::Parameter cannot state: a_min <= a_max (node.cc
 *  turns the ParamError into a message naming the op and the node). */
void ClipParser(NodeAttrs* attrs) {
  ParamParser<ClipParam>(attrs);
  const ClipParam& p = Param<ClipParam>(*attrs);
  if (!(p.a_min <= p.a_max)) {
    std::ostringstream os;
    os << "a_min (" << p.a_min << ") must not exceed a_max (" << p.a_max << ")";
    throw dmlc::ParamError(os.str());
  }
}

}  // namespace

SYMNET_REGISTER_OP(clip)
    .describe(
        "Clips the values to [a_min, a_max]: y = min(max(x, a_min), a_max). The gradient "
        "passes where a_min <= x <= a_max and is 0 elsewhere.")
    .set_attr_parser(ClipParser)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(ParamDocs<ClipParam>())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_clip"))
    .set_attr<FCompute>("FCompute<cpu>", ClipCompute<cpu>);

SYMNET_REGISTER_OP(_backward_clip)
    .set_num_inputs(2)
    .set_attr_parser(ClipParser)
    .add_arguments(ParamDocs<ClipParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", ClipGradCompute<cpu>);

}  // namespace ops
}  // namespace symnet
