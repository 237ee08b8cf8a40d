/*! \brief softmax and log_softmax along an axis (temperature optional), and their gradients. */
#include "softmax.h"

namespace symnet {
namespace ops {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis along which to compute softmax.");
    DMLC_DECLARE_FIELD(temperature)
        .set_default(dmlc::optional<double>())
        .describe("Temperature: softmax(x / temperature). None means 1.");
  }
};
DMLC_REGISTER_PARAMETER(SoftmaxParam);

namespace {

template <bool is_log>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  const double t = p.temperature.has_value() ? p.temperature.value() : 1.0;
  const AxisSplit sp = SplitAtAxis(in[0].shape_, p.axis);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SoftmaxForward<is_log>(in[0].dptr<T>(), out[0].dptr<T>(), sp, t, req[0]);
  });
}

/*!
 * \brief softmax: dx = y (dy - sum(dy y)) / t; log_softmax: dx = (dy - exp(y) sum(dy)) / t.
 */
template <bool is_log, typename T>
void SoftmaxBackward(const T* dy, const T* y, T* dx, AxisSplit sp, double t, OpReqType req) {
  using A = AccType<T>;
  const A inv_t = static_cast<A>(1.0 / t);
  const int64_t rows = sp.outer * sp.inner;
  const bool add = req == kAddTo;
#pragma omp parallel for if (rows * sp.n >= kOmpMinWork)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = (r / sp.inner) * sp.n * sp.inner + r % sp.inner;
    A s = 0;
    for (int64_t k = 0; k < sp.n; ++k) {
      const int64_t i = base + k * sp.inner;
      s += is_log ? static_cast<A>(dy[i]) : static_cast<A>(dy[i]) * static_cast<A>(y[i]);
    }
    for (int64_t k = 0; k < sp.n; ++k) {
      const int64_t i = base + k * sp.inner;
      const A g = static_cast<A>(dy[i]), v = static_cast<A>(y[i]);
      const A d = (is_log ? g - std::exp(v) * s : v * (g - s)) * inv_t;
      if (add) {
        AssignReq<kAddTo>(&dx[i], d);
      } else {
        AssignReq<kWriteTo>(&dx[i], d);
      }
    }
  }
}

/*! \brief Inputs (dy, y). */
template <bool is_log>
void SoftmaxGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  const double t = p.temperature.has_value() ? p.temperature.value() : 1.0;
  const AxisSplit sp = SplitAtAxis(in[1].shape_, p.axis);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    SoftmaxBackward<is_log>(in[0].dptr<T>(), in[1].dptr<T>(), out[0].dptr<T>(), sp, t, req[0]);
  });
}

}  // namespace

#define SYMNET_REGISTER_SOFTMAX(NAME, IS_LOG, DOC)                                  \
  SYMNET_REGISTER_OP(NAME)                                                          \
      .describe(DOC)                                                                \
      .set_attr_parser(ParamParser<SoftmaxParam>)                                   \
      .add_arguments(ParamDocs<SoftmaxParam>())                                     \
      .add_argument("data", "NDArray-or-Symbol", "The input array.")                \
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)                          \
      .set_attr<FInferType>("FInferType", ElemwiseType)                             \
      .set_attr<FGradient>("FGradient", ElemwiseGradUseOut("_backward_" #NAME))     \
      .set_attr<FCompute>("FCompute<cpu>", SoftmaxCompute<IS_LOG>);                 \
  SYMNET_REGISTER_OP(_backward_##NAME)                                              \
      .set_num_inputs(2)                                                            \
      .set_attr_parser(ParamParser<SoftmaxParam>)                                   \
      .add_arguments(ParamDocs<SoftmaxParam>())                                     \
      .set_attr<TIsBackward>("TIsBackward", true)                                   \
      .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)                   \
      .set_attr<FCompute>("FCompute<cpu>", SoftmaxGradCompute<IS_LOG>)

SYMNET_REGISTER_SOFTMAX(softmax, false, "Softmax along an axis: exp(x/t) / sum(exp(x/t)).");
SYMNET_REGISTER_SOFTMAX(log_softmax, true, "Log of softmax along an axis, computed stably.");

}  // namespace ops
}  // namespace symnet
