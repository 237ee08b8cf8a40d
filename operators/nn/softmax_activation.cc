/*! \brief SoftmaxActivation (softmax_activation.h): shape rule and registrations. */
#include "softmax_activation.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SoftmaxActivationParam);

namespace {

/*! \brief Element-wise; 'channel' needs an axis 1 and something after it, as MXNet checks. */
bool SoftmaxActivationShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    const bool channel = Param<SoftmaxActivationParam>(attrs).mode == kSoftmaxChannel;
    SYMNET_CHECK(!channel || d.ndim() >= 3)
        << "SoftmaxActivation: mode='channel' needs data of at least 3 dims (N, C, ...), got "
           "shape "
        << d << "; use mode='instance' or softmax(axis=1)";
    SYMNET_CHECK(d.ndim() >= 1) << "SoftmaxActivation: data must have at least 1 dim";
  }
  return ElemwiseShape(attrs, in, out);
}

}  // namespace

SYMNET_REGISTER_OP(SoftmaxActivation)
    .describe(
        "Softmax (deprecated in MXNet; use softmax): mode='instance' normalizes each sample "
        "over all its other axes, mode='channel' over axis 1 at each position.")
    .set_attr_parser(ParamParser<SoftmaxActivationParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ParamDocs<SoftmaxActivationParam>())
    .set_attr<FInferShape>("FInferShape", SoftmaxActivationShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseOut("_backward_SoftmaxActivation"))
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxActivationForward<cpu>);

SYMNET_REGISTER_OP(_backward_SoftmaxActivation)
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SoftmaxActivationParam>)
    .add_arguments(ParamDocs<SoftmaxActivationParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxActivationBackward<cpu>);

}  // namespace ops
}  // namespace symnet
