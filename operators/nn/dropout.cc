/*!
 * \brief Dropout: in training (or mode='always') zeroes each element with probability p and
 *  scales the rest by 1/(1-p); identity otherwise. The mask (second, hidden output) holds 0 or
 *  1/(1-p) and is shared along `axes` (variational dropout). Masks come from counter-based
 *  streams, so a run is reproducible after symnet.random.seed().
 */
#include "dropout.h"

#include <cstring>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(DropoutParam);

namespace {

bool DropoutShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  AssignOutShape(out, 0, x);
  AssignOutShape(out, 1, x);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(Dropout)
    .describe(
        "Randomly zeroes elements with probability p during training, scaling the kept "
        "ones by 1/(1-p); identity in inference (unless mode='always').")
    .set_num_outputs(2)
    .set_attr<TDrawsRandom>("TDrawsRandom", true)
    .set_attr_parser(ParamParser<DropoutParam>)
    .add_arguments(ParamDocs<DropoutParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "mask"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs&) -> uint32_t { return 1; })
    .set_attr<FInferShape>("FInferShape", DropoutShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            [](const NodeAttrs& a) {
                              // a mask shared along logical axes needs the logical order
                              const Shape& axes = Param<DropoutParam>(a).axes;
                              const bool shared = axes.ndim_known() && axes.ndim() > 0;
                              return shared ? LayoutSlots() : AllSlotsUniform(a);
                            })
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           // dx = dy * mask
                           return MakeGradNode("elemwise_mul", n, {ograds[0], NodeEntry{n, 1, 0}});
                         })
    .set_attr<FCompute>("FCompute<cpu>", DropoutCompute<>);

}  // namespace ops
}  // namespace symnet
