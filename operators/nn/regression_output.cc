/*! \brief LinearRegressionOutput: identity forward, squared-loss gradient (y - label) backward. */
#include "regression_output.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(RegressionOutputParam);

namespace {

bool RegressionShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  // MXNet accepts a (n,) label for (n, 1) data
  const Shape& l = (*in)[1];
  const bool flat_label =
      l.is_known() && l.ndim() == 1 && d.ndim() == 2 && d[1] == 1 && l[0] == d[0];
  if (!flat_label) AssignInShape(in, 1, d);
  AssignOutShape(out, 0, d);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(LinearRegressionOutput)
    .describe(
        "Identity in forward; in backward the gradient of 0.5*(y - label)^2 averaged over "
        "the outputs of each sample, times grad_scale.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<RegressionOutputParam>)
    .add_arguments(ParamDocs<RegressionOutputParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input predictions.")
    .add_argument("label", "NDArray-or-Symbol", "Targets.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "label"};
                               })
    .set_attr<FInferShape>("FInferShape", RegressionShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<TIsLoss>("TIsLoss", true)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>&) {
                           auto g = MakeGradNode("_backward_LinearRegressionOutput", n,
                                                 {n->inputs[1], NodeEntry{n, 0, 0}}, ParamsOf(n));
                           return std::vector<NodeEntry>{g[0], NoGradient()};
                         })
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(_backward_LinearRegressionOutput)
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<RegressionOutputParam>)
    .add_arguments(ParamDocs<RegressionOutputParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", RegressionGradCompute<>);

}  // namespace ops
}  // namespace symnet
