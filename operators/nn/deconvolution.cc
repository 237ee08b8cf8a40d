/*!
 * \brief Deconvolution (1-D, 2-D, 3-D, grouped, dilated) on the CPU: the convolution primitives
 *  of dnnl_convolution.h with the roles swapped (deconvolution.h) for float32/bfloat16, float32
 *  staging for float16, the reference loops of convolution_ref.cc for float64.
 */
#include "deconvolution.h"

#include <algorithm>

#include "../dnnl/dnnl_convolution.h"
#include "../stage_f32.h"
#include "../tensor/elemwise_kernels.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(DeconvolutionParam);

ConvGeometry MakeDeconvGeometry(const DeconvolutionParam& p, const Shape& given) {
  const int nsp = p.kernel.ndim();
  SYMNET_CHECK(nsp >= 1 && nsp <= 3) << "kernel must have 1 to 3 dims, got " << p.kernel;
  const bool last = IsChannelsLast(p.layout);
  SYMNET_CHECK(!p.layout.has_value() || LayoutSpatialDims(p.layout) == nsp)
      << "layout " << LayoutName(p.layout.value()) << " does not fit a " << nsp
      << "-D deconvolution (kernel " << p.kernel << ")";
  SYMNET_CHECK_EQ(given.ndim(), nsp + 2)
      << "a " << nsp << "-D deconvolution (kernel " << p.kernel << ") needs data of " << nsp + 2
      << (last ? " dims (N, spatial..., C)" : " dims (N, C, spatial...)") << ", got " << given;
  const Shape data = last ? ToChannelsFirst(given) : given;
  auto dims_or = [&](const Shape& s, int64_t def, const char* name) {
    std::vector<int64_t> v(nsp, def);
    if (s.ndim_known() && s.ndim() > 0) {
      SYMNET_CHECK_EQ(s.ndim(), nsp)
          << name << " " << s << " must have as many dims as kernel " << p.kernel;
      for (int i = 0; i < nsp; ++i) v[i] = s[i];
    }
    return v;
  };
  ConvGeometry g;
  g.n = data[0];
  g.c = p.num_filter;
  g.o = data[1];
  g.groups = p.num_group;
  g.kernel = dims_or(p.kernel, 1, "kernel");
  g.stride = dims_or(p.stride, 1, "stride");
  g.dilate = dims_or(p.dilate, 1, "dilate");
  std::vector<int64_t> pad = dims_or(p.pad, 0, "pad"), adj = dims_or(p.adj, 0, "adj");
  const std::vector<int64_t> target = dims_or(p.target_shape, 0, "target_shape");
  bool use_target = false;
  for (int64_t t : target) use_target = use_target || t != 0;
  SYMNET_CHECK(g.o % g.groups == 0 && g.c % g.groups == 0)
      << "num_group " << g.groups << " must divide the input channels (" << g.o
      << ") and num_filter (" << g.c << ")";
  for (int i = 0; i < nsp; ++i) {
    SYMNET_CHECK(g.kernel[i] > 0 && g.stride[i] > 0 && g.dilate[i] > 0 && pad[i] >= 0 &&
                 adj[i] >= 0)
        << "kernel, stride and dilate must be positive and pad and adj non-negative";
    const int64_t in = data[2 + i], span = g.dilate[i] * (g.kernel[i] - 1) + 1;
    if (use_target) {
      const int64_t total = g.stride[i] * (in - 1) + span - target[i];
      SYMNET_CHECK(total >= 0) << "target_shape " << p.target_shape << " is larger than the "
                               << "largest output this input " << data << " gives ("
                               << g.stride[i] * (in - 1) + span << " in dim " << i << ")";
      adj[i] = total % 2;
      pad[i] = (total + 1) / 2;
    }
    SYMNET_CHECK(adj[i] < g.stride[i])
        << "adj (" << adj[i] << " in dim " << i << ") must be smaller than the stride ("
        << g.stride[i] << ")"
        << (use_target ? ", as target_shape " + p.target_shape.ToString() + " makes it" : "");
    const int64_t out = g.stride[i] * (in - 1) + span - 2 * pad[i] + adj[i];
    SYMNET_CHECK(in > 0 && out > 0) << "a deconvolution of " << data << " with pad " << pad[i]
                                    << " has no output in dim " << i << " (size " << out << ")";
    g.in.push_back(out);
    g.out.push_back(in);
  }
  g.pad = pad;
  return g;
}

namespace {

Shape DeconvOutShape(const DeconvolutionParam& p, const ConvGeometry& g) {
  Shape y{g.n, g.c};
  for (auto v : g.in) y.push_back(v);
  return IsChannelsLast(p.layout) ? ToChannelsLast(y) : y;
}

bool DeconvShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const DeconvolutionParam& p = Param<DeconvolutionParam>(attrs);
  if (!p.no_bias) AssignInShape(in, 2, Shape{p.num_filter});
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  const ConvGeometry g = MakeDeconvGeometry(p, x);
  Shape w{g.o, g.c / g.groups};
  for (auto k : g.kernel) w.push_back(k);
  AssignInShape(in, 1, IsChannelsLast(p.layout) ? ToChannelsLast(w) : w);
  AssignOutShape(out, 0, DeconvOutShape(p, g));
  return true;
}

/*!
 * \brief FLayoutPreference of Deconvolution (groups: data, output) and its backward (groups:
 *  data with its gradient, output gradient): what oneDNN picks for the swapped convolution,
 *  whose source is the deconvolution's output side. `data` is the input slot of the data.
 */
FLayoutPreference DeconvLayoutPreference(size_t data) {
  return [data](const NodeAttrs& attrs, const std::vector<Shape>& in,
                const std::vector<DType>& types) -> std::vector<Layout> {
    const DeconvolutionParam& p = Param<DeconvolutionParam>(attrs);
    if (IsChannelsLast(p.layout) || !in.at(data).is_known()) return {};
    std::vector<Layout> l = DnnlConvLayouts(MakeDeconvGeometry(p, in[data]), types.at(data));
    std::reverse(l.begin(), l.end());
    return l;
  };
}

/*! \brief The swapped convolution's config: `side_x` is the deconvolution's input side (the
 *  convolution's output) and `side_y` its output side (the convolution's input). */
dnnl_util::ConvConfig MakeConfig(const ConvGeometry& g, const TBlob& side_x, const TBlob& w,
                                 const TBlob& side_y) {
  return dnnl_util::MakeConvConfig(g, side_y, w, side_x, false, true);
}

struct DeconvForwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlConvBackward> conv;  // its data half only
};
struct DeconvBackwardState : public OpState {
  dnnl_util::ConvConfig cfg;
  std::unique_ptr<dnnl_util::DnnlConvForward> data;      // dx
  std::unique_ptr<dnnl_util::DnnlConvBackward> weights;  // dw (its weights half only)
};

}  // namespace

void DeconvForwardCPU(const DeconvolutionParam& p, const NodeAttrs& attrs, const OpContext& ctx,
                      const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& given_out) {
  if (req[0] == kNullOp) return;
  const DType t = given_in[0].dtype_;
  if (!ConvUsesDnnl(t) && t != DType::kFloat64) {
    auto f32 = [&p](const NodeAttrs& a, const OpContext& c, const std::vector<TBlob>& i,
                    const std::vector<OpReqType>& r,
                    const std::vector<TBlob>& o) { DeconvForwardCPU(p, a, c, i, r, o); };
    return StagedF32Compute(f32, attrs, ctx, given_in, req, given_out);
  }
  const std::vector<TBlob> in = DeconvViews(p, given_in), out = DeconvViews(p, given_out);
  const ConvGeometry g = MakeDeconvGeometry(p, given_in[0].shape_);
  if (g.n == 0) return;
  if (t == DType::kFloat64) {
    // the data gradient of the swapped convolution; out[0] stands in for its unused x
    ConvBackwardRef(g, in[0], out[0], in[1], out[0], in[1], nullptr, {req[0], kNullOp});
  } else {
    const auto cfg = MakeConfig(g, in[0], in[1], out[0]);
    auto& st = ctx.GetState<DeconvForwardState>(
        [&] {
          auto* s = new DeconvForwardState();
          s->conv = std::make_unique<dnnl_util::DnnlConvBackward>(cfg);
          return s;
        },
        [&](const DeconvForwardState& s) { return s.conv->config() == cfg; });
    st.conv->Run(in[0].dptr_, nullptr, in[1].dptr_, out[0].dptr_, nullptr, nullptr,
                 {req[0], kNullOp}, in[1].version_);
  }
  if (!p.no_bias) DeconvAddBias<cpu>(out[0], in[2]);
}

void DeconvBackwardCPU(const DeconvolutionParam& p, const NodeAttrs& attrs, const OpContext& ctx,
                       const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                       const std::vector<TBlob>& given_out) {
  const DType t = given_in[1].dtype_;
  if (!ConvUsesDnnl(t) && t != DType::kFloat64) {
    auto f32 = [&p](const NodeAttrs& a, const OpContext& c, const std::vector<TBlob>& i,
                    const std::vector<OpReqType>& r,
                    const std::vector<TBlob>& o) { DeconvBackwardCPU(p, a, c, i, r, o); };
    return StagedF32Compute(f32, attrs, ctx, given_in, req, given_out);
  }
  const std::vector<TBlob> in = DeconvViews(p, given_in), out = DeconvViews(p, given_out);
  const ConvGeometry g = MakeDeconvGeometry(p, given_in[1].shape_);
  const TBlob &dy = in[0], &x = in[1], &w = in[2], &dx = out[0], &dw = out[1];
  if (!p.no_bias) DeconvBiasGrad<cpu>(dy, out[2], req[2]);
  if (g.n == 0) {
    // no samples: the weight gradient is an empty sum
    if (req[1] == kWriteTo || req[1] == kWriteInplace) ZeroBlob(dw);
    return;
  }
  if (t == DType::kFloat64) {
    if (req[0] != kNullOp) ConvForwardRef(g, dy, w, nullptr, dx, req[0]);
    if (req[1] != kNullOp) ConvBackwardRef(g, x, dy, w, dy, dw, nullptr, {kNullOp, req[1]});
    return;
  }
  const auto cfg = MakeConfig(g, x, w, dy);
  auto& st = ctx.GetState<DeconvBackwardState>(
      [&] {
        auto* s = new DeconvBackwardState();
        s->cfg = cfg;
        return s;
      },
      [&](const DeconvBackwardState& s) { return s.cfg == cfg; });
  if (req[0] != kNullOp) {
    if (!st.data) st.data = std::make_unique<dnnl_util::DnnlConvForward>(cfg);
    st.data->Run(dy.dptr_, w.dptr_, nullptr, dx.dptr_, req[0], w.version_);
  }
  if (req[1] != kNullOp) {
    if (!st.weights) st.weights = std::make_unique<dnnl_util::DnnlConvBackward>(cfg);
    st.weights->Run(x.dptr_, dy.dptr_, w.dptr_, nullptr, dw.dptr_, nullptr, {kNullOp, req[1]});
  }
}

namespace {

void DeconvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  DeconvForwardCPU(Param<DeconvolutionParam>(attrs), attrs, ctx, in, req, out);
}

void DeconvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  DeconvBackwardCPU(Param<DeconvolutionParam>(attrs), attrs, ctx, in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(Deconvolution)
    .describe(
        "Transposed convolution (the data gradient of a Convolution) over 1, 2 or 3 spatial "
        "dims of (N, C, ...) data, with weights (C, num_filter/num_group, kernel...). Output "
        "size per dim: stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj, or target_shape.")
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t {
      return Param<DeconvolutionParam>(a).no_bias ? 2 : 3;
    })
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .add_arguments(ParamDocs<DeconvolutionParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, spatial...).")
    .add_argument("weight", "NDArray-or-Symbol", "Weights (C, num_filter/num_group, kernel...).")
    .add_argument("bias", "NDArray-or-Symbol", "Bias (num_filter,).")
    .set_attr<FListInputNames>("FListInputNames", ConvLikeInputs<DeconvolutionParam>)
    .set_attr<FInferShape>("FInferShape", DeconvShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            ConvLikeLayoutSlots<DeconvolutionParam>({{{false, 0}}, {{true, 0}}}))
    .set_attr<FLayoutPreference>("FLayoutPreference", DeconvLayoutPreference(0))
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return MakeGradNode("_backward_Deconvolution", n,
                                               {ograds[0], n->inputs[0], n->inputs[1]},
                                               ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", DeconvForward);

SYMNET_REGISTER_OP(_backward_Deconvolution)
    .set_num_inputs(3)
    .set_num_outputs([](const NodeAttrs& a) -> uint32_t {
      return Param<DeconvolutionParam>(a).no_bias ? 2 : 3;
    })
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .add_arguments(ParamDocs<DeconvolutionParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    // (x, dx) share the data side; dy is the output side
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            ConvLikeLayoutSlots<DeconvolutionParam>({{{false, 1}, {true, 0}},
                                                                     {{false, 0}}}))
    .set_attr<FLayoutPreference>("FLayoutPreference", DeconvLayoutPreference(1))
    .set_attr<FCompute>("FCompute<cpu>", DeconvBackward);

}  // namespace ops
}  // namespace symnet
