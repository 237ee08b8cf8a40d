/*!
 * \brief The regression output heads: LinearRegressionOutput (squared loss), LogisticRegression-
 *  Output (sigmoid with cross entropy) and MAERegressionOutput (absolute loss). Their forward is
 *  the identity or the sigmoid; their backward ignores the head gradient and yields the loss's.
 */
#include "regression_output.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(RegressionOutputParam);

namespace {

/*! \brief As MXNet: an unknown label takes the data's shape, except that (n, 1) data gets an
 *  (n,) label; a known label may have any shape with the data's batch size and element count. */
bool RegressionShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  const Shape& l = (*in)[1];
  if (!l.ndim_known()) {
    AssignInShape(in, 1, d.ndim() == 2 && d[1] == 1 ? Shape{d[0]} : d);
  } else if (l.is_known() && !(l.ndim() >= 1 && l[0] == d[0] && l.Size() == d.Size())) {
    throw InferError{true, 1, d.ToString(), l.ToString()};
  } else {
    AssignInShape(in, 1, l);
  }
  AssignOutShape(out, 0, d);
  return true;
}

}  // namespace

#define SYMNET_REGISTER_REGRESSION(NAME, FWD, GRAD, DOC)                                        \
  SYMNET_REGISTER_OP(NAME)                                                                      \
      .describe(DOC)                                                                            \
      .set_num_inputs(2)                                                                        \
      .set_attr_parser(ParamParser<RegressionOutputParam>)                                      \
      .add_argument("data", "NDArray-or-Symbol", "Input predictions.")                          \
      .add_argument("label", "NDArray-or-Symbol", "Targets.")                                   \
      .add_arguments(ParamDocs<RegressionOutputParam>())                                        \
      .set_attr<FListInputNames>("FListInputNames",                                             \
                                 [](const NodeAttrs&) {                                         \
                                   return std::vector<std::string>{"data", "label"};            \
                                 })                                                             \
      .set_attr<FInferShape>("FInferShape", RegressionShape)                                    \
      .set_attr<FInferType>("FInferType", ElemwiseType)                                         \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                               \
      .set_attr<TIsLoss>("TIsLoss", true)                                                       \
      .set_attr<FGradient>("FGradient",                                                         \
                           [](const NodePtr& n, const std::vector<NodeEntry>&) {                \
                             auto g =                                                           \
                                 MakeGradNode("_backward_" #NAME, n,                            \
                                              {n->inputs[1], NodeEntry{n, 0, 0}}, ParamsOf(n)); \
                             return std::vector<NodeEntry>{g[0], NoGradient()};                 \
                           })                                                                   \
      .set_attr<FCompute>("FCompute<cpu>", FWD);                                                \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                          \
      .set_num_inputs(2)                                                                        \
      .set_num_outputs(2)                                                                       \
      .set_attr_parser(ParamParser<RegressionOutputParam>)                                      \
      .add_arguments(ParamDocs<RegressionOutputParam>())                                        \
      .set_attr<TIsBackward>("TIsBackward", true)                                               \
      .set_attr<FCompute>("FCompute<cpu>", RegressionGradCompute<GRAD>);

SYMNET_REGRESSION_OUTPUTS(SYMNET_REGISTER_REGRESSION)

}  // namespace ops
}  // namespace symnet
