/*!
 * \brief SVMOutput: identity in forward; in backward the gradient of a one-vs-rest (squared)
 *  hinge loss over the last axis, ignoring the head gradient.
 */
#include "svm_output.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SVMOutputParam);

namespace {

/*! \brief Scores (..., classes); one class label per score vector: the data's shape without its
 *  last axis. */
bool SVMOutputShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 2) << "SVMOutput expects data of at least 2 dims (batch, classes), "
                              << "got shape " << d;
  std::vector<int64_t> lab(d.begin(), d.end() - 1);
  AssignInShape(in, 1, Shape(lab));
  AssignOutShape(out, 0, d);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(SVMOutput)
    .describe(
        "Support vector machine output: identity in forward; in backward the gradient of the "
        "L2-SVM (or, with use_linear, L1-SVM) loss of the scores along the last axis against "
        "the class labels, times regularization_coefficient.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SVMOutputParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data for SVM transformation.")
    .add_argument("label", "NDArray-or-Symbol", "Class label for the input data.")
    .add_arguments(ParamDocs<SVMOutputParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "label"};
                               })
    .set_attr<FInferShape>("FInferShape", SVMOutputShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<TIsLoss>("TIsLoss", true)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>&) {
                           auto g = MakeGradNode("_backward_SVMOutput", n,
                                                 {n->inputs[1], NodeEntry{n, 0, 0}}, ParamsOf(n));
                           return std::vector<NodeEntry>{g[0], NoGradient()};
                         })
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(_backward_SVMOutput)
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SVMOutputParam>)
    .add_arguments(ParamDocs<SVMOutputParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", SVMOutputGradCompute<>);

}  // namespace ops
}  // namespace symnet
