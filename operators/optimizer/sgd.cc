/*!
 * \brief SGD updates as ops (MXNet's sgd_update, sgd_mom_update):
 *  g' = clip(rescale_grad * g); plain: w = (1 - lr*wd) w - lr g';
 *  momentum: m = momentum m - lr*wd w - lr g'; w = w + m.
 */
#include "../kernel_launch.h"
#include "../operator_common.h"

namespace symnet {
namespace ops {

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("The decay rate of momentum estimates.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Multiplies the gradient first.");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(
        "Clips the rescaled gradient to [-clip_gradient, clip_gradient]; negative means no clipping.");
    DMLC_DECLARE_FIELD(lazy_update).set_default(true).describe(
        "Accepted for MXNet compatibility (only dense arrays exist here).");
  }
};
DMLC_REGISTER_PARAMETER(SGDParam);

namespace {

template <typename A>
SYMNET_XINLINE A ClipGrad(A g, A clip) {
  if (clip >= A(0)) g = g > clip ? clip : (g < -clip ? -clip : g);
  return g;
}

struct SGDKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* w, const T* g, A lr, A wd, A rescale,
                                 A clip) {
    const A gv = ClipGrad(rescale * static_cast<A>(g[i]), clip);
    out[i] = T((A(1) - lr * wd) * static_cast<A>(w[i]) - lr * gv);
  }
};

struct SGDMomKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* w, const T* g, T* mom, A lr, A momentum,
                                 A wd, A rescale, A clip) {
    const A gv = ClipGrad(rescale * static_cast<A>(g[i]), clip);
    const A wv = static_cast<A>(w[i]);
    const A m = momentum * static_cast<A>(mom[i]) - lr * wd * wv - lr * gv;
    mom[i] = T(m);
    out[i] = T(wv + m);
  }
};

template <bool with_momentum>
void SGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "optimizer updates cannot accumulate (req=add)";
  const SGDParam& p = Param<SGDParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    using A = AccType<T>;
    if (with_momentum) {
      Kernel<SGDMomKernel, cpu>::Launch(in[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                        in[1].dptr<T>(), in[2].dptr<T>(), A(p.lr), A(p.momentum),
                                        A(p.wd), A(p.rescale_grad), A(p.clip_gradient));
    } else {
      Kernel<SGDKernel, cpu>::Launch(in[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                     in[1].dptr<T>(), A(p.lr), A(p.wd), A(p.rescale_grad),
                                     A(p.clip_gradient));
    }
  });
}

}  // namespace

SYMNET_REGISTER_OP(sgd_update)
    .describe("SGD update: weight = (1 - lr*wd) * weight - lr * clip(rescale_grad * grad).")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SGDParam>)
    .add_arguments(ParamDocs<SGDParam>())
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"weight", "grad"};
                               })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", SGDCompute<false>);

SYMNET_REGISTER_OP(sgd_mom_update)
    .describe("SGD with momentum: mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad); "
              "weight += mom.")
    .set_num_inputs(3)
    .set_attr_parser(ParamParser<SGDParam>)
    .add_arguments(ParamDocs<SGDParam>())
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mom", "NDArray-or-Symbol", "Momentum (updated in place).")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"weight", "grad", "mom"};
                               })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) { return std::vector<uint32_t>{2}; })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", SGDCompute<true>);

}  // namespace ops
}  // namespace symnet
