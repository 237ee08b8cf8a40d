/*!
 * \brief LayerNorm with MXNet 1.9.1's semantics: y = (x - mean) / sqrt(var + eps) * gamma + beta
 *  over one axis (the last by default), gamma and beta of that axis' length. The node has three
 *  outputs (out, mean, std), the statistics shaped as the data with the axis set to 1; only out
 *  is visible unless output_mean_var. CPU: oneDNN for float32 normalized over the last axis; the
 *  shared loops of norm_kernels.h for float64 and other axes; 16-bit data staged in float32.
 */
#include "layer_norm.h"

#include <vector>

#include "../dnnl/dnnl_layer_norm.h"
#include "../scratch_output.h"
#include "../stage_f32.h"
#include "symnet/storage.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(LayerNormParam);

namespace {

bool LayerNormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape d = (*in)[0];
  if (!d.is_known() && (*out)[0].is_known()) d = (*out)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 1) << "LayerNorm expects data of at least 1 dim, got shape " << d;
  const int a = LayerNormAxis(Param<LayerNormParam>(attrs), d.ndim());
  Shape stat = d;
  stat[a] = 1;
  AssignInShape(in, 0, d);
  AssignInShape(in, 1, Shape{d[a]});
  AssignInShape(in, 2, Shape{d[a]});
  AssignOutShape(out, 0, d);
  AssignOutShape(out, 1, stat);
  AssignOutShape(out, 2, stat);
  return true;
}

bool UseDnnl(const LayerNormParam& p, const TBlob& x) {
  return dnnl_util::LayerNormSupported(x.shape_, x.dtype_, x.layout_,
                                       LayerNormAxis(p, x.shape_.ndim()));
}

dnnl_util::LayerNormConfig MakeConfig(const LayerNormParam& p, const TBlob& x) {
  dnnl_util::LayerNormConfig c;
  c.c = x.shape_[x.shape_.ndim() - 1];
  c.rows = x.Size() / c.c;
  c.dtype = x.dtype_;
  c.eps = p.eps;
  return c;
}

struct LNForwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlLayerNormForward> ln;
  StoragePtr scratch;
  std::vector<float> mean, std;  // statistics nobody asked for (kNullOp) still get computed
};
struct LNBackwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlLayerNormBackward> ln;
  StoragePtr scratch;
};

template <typename State, typename Wrapper>
State& DnnlState(const OpContext& ctx, const dnnl_util::LayerNormConfig& cfg) {
  return ctx.GetState<State>(
      [&] {
        auto* s = new State();
        s->ln = std::make_unique<Wrapper>(cfg);
        return s;
      },
      [&](const State& s) { return s.ln->config() == cfg; });
}

bool Is16Bit(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

void LayerNormForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LayerNormParam& p = Param<LayerNormParam>(attrs);
  const TBlob& x = in[0];
  if (UseDnnl(p, x)) {
    const auto cfg = MakeConfig(p, x);
    auto& st = DnnlState<LNForwardState, dnnl_util::DnnlLayerNormForward>(ctx, cfg);
    auto stat = [&](int i, std::vector<float>* own) {
      if (req[i] != kNullOp) return out[i].dptr<float>();
      own->resize(cfg.rows);
      return own->data();
    };
    void* y = ScratchFor(&st.scratch, out[0], req[0] == kNullOp ? kAddTo : req[0]);
    st.ln->Run(x.dptr_, in[1].dptr<float>(), in[2].dptr<float>(), y, stat(1, &st.mean),
               stat(2, &st.std));
    AddScratch(y, out[0], req[0]);
  } else if (Is16Bit(x.dtype_)) {
    StagedF32Compute(LayerNormForward, attrs, ctx, in, req, out);
  } else {
    NormForward<cpu>(LayerNormView(p, x.shape_), in, req, out);
  }
}

/*! \brief Inputs (dy, x, gamma, mean, std); outputs (dx, dgamma, dbeta). */
void LayerNormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LayerNormParam& p = Param<LayerNormParam>(attrs);
  const TBlob& x = in[1];
  if (UseDnnl(p, x)) {
    const auto cfg = MakeConfig(p, x);
    auto& st = DnnlState<LNBackwardState, dnnl_util::DnnlLayerNormBackward>(ctx, cfg);
    void* dx = ScratchFor(&st.scratch, out[0], req[0] == kNullOp ? kAddTo : req[0]);
    st.ln->Run(in[0].dptr_, x.dptr_, in[2].dptr<float>(), in[3].dptr<float>(), in[4].dptr<float>(),
               dx, out[1].dptr<float>(), out[2].dptr<float>(), req[1], req[2]);
    AddScratch(dx, out[0], req[0]);
  } else if (Is16Bit(x.dtype_)) {
    StagedF32Compute(LayerNormBackward, attrs, ctx, in, req, out);
  } else {
    NormBackward<cpu>(LayerNormView(p, x.shape_), in, req, out);
  }
}

}  // namespace

SYMNET_REGISTER_OP(LayerNorm)
    .describe(
        "Layer normalization: y = (x - mean) / sqrt(var + eps) * gamma + beta, the statistics "
        "over `axis` (the last by default) at every position of the other axes, gamma and beta "
        "along the axis. With output_mean_var, also the mean and the std (sqrt(var + eps)), "
        "shaped as the data with the axis set to 1; they pass no gradient back.")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<LayerNormParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale along the axis.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift along the axis.")
    .add_arguments(ParamDocs<LayerNormParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "gamma", "beta"};
                               })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "mean", "std"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs& a) -> uint32_t {
                                    return Param<LayerNormParam>(a).output_mean_var ? 3 : 1;
                                  })
    .set_attr<FInferShape>("FInferShape", LayerNormShape)
    .set_attr<FInferType>("FInferType", NormType("LayerNorm"))
    .set_attr<FGradient>("FGradient", NormGradient("_backward_LayerNorm"))
    .set_attr<FCompute>("FCompute<cpu>", LayerNormForward);

SYMNET_REGISTER_OP(_backward_LayerNorm)
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<LayerNormParam>)
    .add_arguments(ParamDocs<LayerNormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", LayerNormBackward);

}  // namespace ops
}  // namespace symnet
