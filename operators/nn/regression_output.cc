/*! \brief LinearRegressionOutput: identity forward, squared-loss gradient (y - label) backward. */
#include "../kernel_launch.h"
#include "../operator_common.h"

namespace symnet {
namespace ops {

struct RegressionOutputParam : public dmlc::Parameter<RegressionOutputParam> {
  float grad_scale;
  DMLC_DECLARE_PARAMETER(RegressionOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient.");
  }
};
DMLC_REGISTER_PARAMETER(RegressionOutputParam);

namespace {

bool RegressionShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  // MXNet accepts a (n,) label for (n, 1) data
  const Shape& l = (*in)[1];
  const bool flat_label = l.is_known() && l.ndim() == 1 && d.ndim() == 2 && d[1] == 1 && l[0] == d[0];
  if (!flat_label) AssignInShape(in, 1, d);
  AssignOutShape(out, 0, d);
  return true;
}

void RegressionCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].dptr_ == out[0].dptr_) return;
  if (req[0] == kAddTo) {
    SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
      for (int64_t i = 0; i < out[0].Size(); ++i)
        AssignReq<kAddTo>(&out[0].dptr<T>()[i], static_cast<AccType<T>>(in[0].dptr<T>()[i]));
    });
    return;
  }
  std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
}

/*! \brief Inputs (label, y); dx = (y - label) * grad_scale / (outputs per sample). */
void RegressionGradCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob &label = in[0], &y = in[1];
  const int64_t n = y.Size();
  const double per_sample = static_cast<double>(label.Size()) / label.shape_[0];
  SYMNET_FLOAT_TYPE_SWITCH(y.dtype_, T, {
    using A = AccType<T>;
    const A scale = static_cast<A>(Param<RegressionOutputParam>(attrs).grad_scale * ctx.loss_scale / per_sample);
    const T* yp = y.dptr<T>();
    const T* lp = label.dptr<T>();
    T* dx = out[0].dptr<T>();
    SYMNET_REQ_SWITCH(req[0], Req, {
      for (int64_t i = 0; i < n; ++i)
        AssignReq<Req>(&dx[i], (static_cast<A>(yp[i]) - static_cast<A>(lp[i])) * scale);
    });
  });
  if (req[1] == kWriteTo || req[1] == kWriteInplace) std::memset(out[1].dptr_, 0, out[1].Bytes());
}

}  // namespace

SYMNET_REGISTER_OP(LinearRegressionOutput)
    .describe("Identity in forward; in backward the gradient of 0.5*(y - label)^2 averaged over "
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
    .set_attr<FCompute>("FCompute<cpu>", RegressionCompute);

SYMNET_REGISTER_OP(_backward_LinearRegressionOutput)
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<RegressionOutputParam>)
    .add_arguments(ParamDocs<RegressionOutputParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", RegressionGradCompute);

}  // namespace ops
}  // namespace symnet
