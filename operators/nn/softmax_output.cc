/*!
 * \brief SoftmaxOutput: softmax in forward, cross-entropy gradient (y - onehot(label)) in
 *  backward, with MXNet's grad_scale, ignore_label, normalization, multi_output, smoothing.
 */
#include "softmax.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SoftmaxOutputParam);

namespace {

Shape LabelShape(const SoftmaxOutputParam& p, const Shape& d) {
  Shape l = Shape::Scalar();
  if (p.multi_output) {
    l.push_back(d[0]);
    for (int i = 2; i < d.ndim(); ++i) l.push_back(d[i]);
  } else if (p.preserve_shape) {
    for (int i = 0; i + 1 < d.ndim(); ++i) l.push_back(d[i]);
  } else {
    l.push_back(d[0]);
  }
  return l;
}

bool SoftmaxOutputShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 2 || (d.ndim() == 1 && Param<SoftmaxOutputParam>(attrs).preserve_shape))
      << "SoftmaxOutput expects data with a batch axis and a class axis, got " << d;
  const Shape l = LabelShape(Param<SoftmaxOutputParam>(attrs), d);
  // a label with the data's shape holds class probabilities (soft labels)
  if (!((*in)[1] == d)) AssignInShape(in, 1, l);
  AssignOutShape(out, 0, d);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(SoftmaxOutput)
    .add_alias("Softmax")
    .describe(
        "Softmax in forward; in backward the gradient of cross-entropy loss with respect to "
        "the softmax input, (softmax(x) - onehot(label)) * grad_scale / normalization.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .add_arguments(ParamDocs<SoftmaxOutputParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input scores.")
    .add_argument("label", "NDArray-or-Symbol", "Class indices (as floats) or class probabilities.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "label"};
                               })
    .set_attr<FInferShape>("FInferShape", SoftmaxOutputShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<TIsLoss>("TIsLoss", true)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           // the head gradient is read only with out_grad=True
                           std::vector<NodeEntry> in{n->inputs[1], NodeEntry{n, 0, 0}};
                           if (Param<SoftmaxOutputParam>(n->attrs).out_grad)
                             in.push_back(ograds[0]);
                           auto g = MakeGradNode("_backward_SoftmaxOutput", n, in, ParamsOf(n));
                           return std::vector<NodeEntry>{g[0], NoGradient()};
                         })
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxOutputCompute<>);

SYMNET_REGISTER_OP(_backward_SoftmaxOutput)
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t {
      return Param<SoftmaxOutputParam>(a).out_grad ? 3 : 2;
    })
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .add_arguments(ParamDocs<SoftmaxOutputParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxOutputGradCompute<>);

}  // namespace ops
}  // namespace symnet
