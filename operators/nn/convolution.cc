/*!
 * \brief Convolution (1-D, 2-D, 3-D, grouped, dilated): oneDNN for float32/bfloat16, float32
 *  staging for float16, plain loops for float64.
 */
#include "convolution.h"

#include "../dnnl/dnnl_convolution.h"
#include "../stage_f32.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ConvolutionParam);

ConvGeometry MakeConvGeometry(const ConvolutionParam& p, const Shape& given) {
  const int nsp = p.kernel.ndim();
  SYMNET_CHECK(nsp >= 1 && nsp <= 3) << "kernel must have 1 to 3 dims, got " << p.kernel;
  const bool last = IsChannelsLast(p.layout);
  SYMNET_CHECK(!p.layout.has_value() || LayoutSpatialDims(p.layout) == nsp)
      << "layout " << LayoutName(p.layout.value()) << " does not fit a " << nsp
      << "-D convolution (kernel " << p.kernel << ")";
  SYMNET_CHECK_EQ(given.ndim(), nsp + 2)
      << "a " << nsp << "-D convolution (kernel " << p.kernel << ") needs data of " << nsp + 2
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
  g.c = data[1];
  g.o = p.num_filter;
  g.groups = p.num_group;
  g.kernel = dims_or(p.kernel, 1, "kernel");
  g.stride = dims_or(p.stride, 1, "stride");
  g.dilate = dims_or(p.dilate, 1, "dilate");
  g.pad = dims_or(p.pad, 0, "pad");
  SYMNET_CHECK(g.c % g.groups == 0 && g.o % g.groups == 0)
      << "num_group " << g.groups << " must divide the input channels (" << g.c
      << ") and num_filter (" << g.o << ")";
  for (int i = 0; i < nsp; ++i) {
    SYMNET_CHECK(g.kernel[i] > 0 && g.stride[i] > 0 && g.dilate[i] > 0 && g.pad[i] >= 0)
        << "kernel, stride and dilate must be positive and pad non-negative";
    g.in.push_back(data[2 + i]);
    const int64_t span = g.dilate[i] * (g.kernel[i] - 1) + 1;
    const int64_t o = (data[2 + i] + 2 * g.pad[i] - span) / g.stride[i] + 1;
    SYMNET_CHECK(data[2 + i] + 2 * g.pad[i] >= span)
        << "kernel " << p.kernel << " (dilated) is larger than the padded input " << data;
    g.out.push_back(o);
  }
  return g;
}

namespace {

/*! \brief A geometry vector of `p` (kernel, stride, dilate, pad), `def` where not given. */
std::vector<int64_t> ConvDims(const Shape& s, int nsp, int64_t def) {
  std::vector<int64_t> v(nsp, def);
  if (s.ndim_known() && s.ndim() == nsp)
    for (int i = 0; i < nsp; ++i) v[i] = s[i];
  return v;
}

/*!
 * \brief Partial shapes, as MXNet's infer_shape_partial: data of known ndim takes an unknown
 *  channel count from the weight, its batch from the output, and (stride 1 only, where the
 *  input length is the only one) a spatial length from the output's; the weight and output get
 *  what the partial data decides. Channels-first here; `last` converts at the edges.
 */
void ConvPartialShape(const ConvolutionParam& p, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int nsp = p.kernel.ndim();
  const bool last = IsChannelsLast(p.layout);
  if ((*in)[0].ndim() != nsp + 2) return;  // MakeConvGeometry reports a wrong ndim
  Shape d = last ? ToChannelsFirst((*in)[0]) : (*in)[0];
  const std::vector<int64_t> kernel = ConvDims(p.kernel, nsp, 1);
  const std::vector<int64_t> stride = ConvDims(p.stride, nsp, 1);
  const std::vector<int64_t> dilate = ConvDims(p.dilate, nsp, 1);
  const std::vector<int64_t> pad = ConvDims(p.pad, nsp, 0);
  const Shape& ws = (*in)[1];
  if (d[1] < 0 && ws.ndim() == nsp + 2) {
    const int64_t wc = last ? ws[nsp + 1] : ws[1];
    if (wc >= 0) d[1] = wc * p.num_group;
  }
  if ((*out)[0].ndim() == nsp + 2) {
    const Shape o = last ? ToChannelsFirst((*out)[0]) : (*out)[0];
    if (d[0] < 0) d[0] = o[0];
    for (int i = 0; i < nsp; ++i) {
      if (d[2 + i] >= 0 || o[2 + i] < 0 || stride[i] != 1) continue;
      const int64_t len = o[2 + i] + dilate[i] * (kernel[i] - 1) - 2 * pad[i];
      if (len >= 0) d[2 + i] = len;
    }
  }
  AssignInShape(in, 0, last ? ToChannelsLast(d) : d);
  if ((*in)[0].is_known()) return;  // the full rule takes it from here
  Shape w{p.num_filter, d[1] >= 0 ? d[1] / p.num_group : -1};
  for (auto k : kernel) w.push_back(k);
  AssignInShape(in, 1, last ? ToChannelsLast(w) : w);
  Shape y{d[0], p.num_filter};
  for (int i = 0; i < nsp; ++i) {
    const int64_t span = dilate[i] * (kernel[i] - 1) + 1;
    y.push_back(d[2 + i] >= 0 && d[2 + i] + 2 * pad[i] >= span
                    ? (d[2 + i] + 2 * pad[i] - span) / stride[i] + 1
                    : -1);
  }
  AssignOutShape(out, 0, last ? ToChannelsLast(y) : y);
}

bool ConvShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  if (!p.no_bias) AssignInShape(in, 2, Shape{p.num_filter});
  const Shape& x = (*in)[0];
  if (x.ndim_known() && !x.is_known()) ConvPartialShape(p, in, out);
  if (!x.is_known()) return false;
  const ConvGeometry g = MakeConvGeometry(p, x);
  const bool last = IsChannelsLast(p.layout);
  Shape w{g.o, g.c / g.groups};
  for (auto k : g.kernel) w.push_back(k);
  AssignInShape(in, 1, last ? ToChannelsLast(w) : w);
  Shape y{g.n, g.o};
  for (auto o : g.out) y.push_back(o);
  AssignOutShape(out, 0, last ? ToChannelsLast(y) : y);
  return true;
}

}  // namespace

bool ConvUsesDnnl(DType t) {
  return t == DType::kFloat32 || (t == DType::kBFloat16 && dnnl_util::NativeSupport(t));
}

std::vector<Layout> DnnlConvLayouts(const ConvGeometry& g, DType t) {
  if (t == DType::kFloat64) return {};
  const auto l = dnnl_util::PreferredConvLayouts(g, ConvUsesDnnl(t) ? t : DType::kFloat32);
  return {l.first, l.second};
}

namespace {

/*!
 * \brief FLayoutPreference of Convolution (groups: data, output) and _backward_Convolution
 *  (groups: data with its gradient, output gradient): the layouts oneDNN's convolution picks for
 *  this geometry on this CPU. `data` is the input slot of the data.
 */
FLayoutPreference ConvLayoutPreference(size_t data) {
  return [data](const NodeAttrs& attrs, const std::vector<Shape>& in,
                const std::vector<DType>& types) -> std::vector<Layout> {
    const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
    if (IsChannelsLast(p.layout) || !in.at(data).is_known()) return {};
    return DnnlConvLayouts(MakeConvGeometry(p, in[data]), types.at(data));
  };
}

struct ConvForwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlConvForward> conv;
};
struct ConvBackwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlConvBackward> conv;
};

void ConvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& given_in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const DType t = given_in[0].dtype_;
  if (!ConvUsesDnnl(t) && t != DType::kFloat64)
    return StagedF32Compute(ConvForward, attrs, ctx, given_in, req, given_out);
  const std::vector<TBlob> in = ConvViews(p, given_in), out = ConvViews(p, given_out);
  if (t == DType::kFloat64) {
    ConvForwardRef(MakeConvGeometry(p, given_in[0].shape_), in[0], in[1],
                   p.no_bias ? nullptr : &in[2], out[0], req[0]);
    return;
  }
  // given_in[0] is the data as the op got it; in and out are channels-first views
  const auto cfg = dnnl_util::MakeConvConfig(MakeConvGeometry(p, given_in[0].shape_), in[0], in[1],
                                             out[0], !p.no_bias, ctx.is_train);
  auto& st = ctx.GetState<ConvForwardState>(
      [&] {
        auto* s = new ConvForwardState();
        s->conv = std::make_unique<dnnl_util::DnnlConvForward>(cfg);
        return s;
      },
      [&](const ConvForwardState& s) { return s.conv->config() == cfg; });
  st.conv->Run(in[0].dptr_, in[1].dptr_, p.no_bias ? nullptr : in[2].dptr_, out[0].dptr_, req[0],
               in[1].version_);
}

/*! \brief Inputs (dy, x, w); outputs (dx, dw[, db]). */
void ConvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& given_in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const DType t = given_in[1].dtype_;
  if (!ConvUsesDnnl(t) && t != DType::kFloat64)
    return StagedF32Compute(ConvBackward, attrs, ctx, given_in, req, given_out);
  const std::vector<TBlob> in = ConvViews(p, given_in), out = ConvViews(p, given_out);
  if (t == DType::kFloat64) {
    ConvBackwardRef(MakeConvGeometry(p, given_in[1].shape_), in[0], in[1], in[2], out[0], out[1],
                    p.no_bias ? nullptr : &out[2], req);
    return;
  }
  const auto cfg = dnnl_util::MakeConvConfig(MakeConvGeometry(p, given_in[1].shape_), in[1], in[2],
                                             in[0], !p.no_bias, true);
  auto& st = ctx.GetState<ConvBackwardState>(
      [&] {
        auto* s = new ConvBackwardState();
        s->conv = std::make_unique<dnnl_util::DnnlConvBackward>(cfg);
        return s;
      },
      [&](const ConvBackwardState& s) { return s.conv->config() == cfg; });
  st.conv->Run(in[0].dptr_, in[1].dptr_, in[2].dptr_, out[0].dptr_, out[1].dptr_,
               p.no_bias ? nullptr : out[2].dptr_, req, in[2].version_);
}

}  // namespace

SYMNET_REGISTER_OP(Convolution)
    .describe(
        "Convolution over 1, 2 or 3 spatial dims of (N, C, ...) data (or (N, ..., C) "
        "with a channels-last layout), with stride, dilation, zero padding and groups. "
        "Output size per dim: "
        "floor((in + 2*pad - dilate*(kernel-1) - 1) / stride) + 1.")
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t {
      return Param<ConvolutionParam>(a).no_bias ? 2 : 3;
    })
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .add_arguments(ParamDocs<ConvolutionParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, spatial...).")
    .add_argument("weight", "NDArray-or-Symbol", "Weights (num_filter, C/num_group, kernel...).")
    .add_argument("bias", "NDArray-or-Symbol", "Bias (num_filter,).")
    .set_attr<FListInputNames>("FListInputNames", ConvLikeInputs<ConvolutionParam>)
    .set_attr<FInferShape>("FInferShape", ConvShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    // data and output independently, each in the layout oneDNN picks for it
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            ConvLikeLayoutSlots<ConvolutionParam>({{{false, 0}}, {{true, 0}}}))
    .set_attr<FLayoutPreference>("FLayoutPreference", ConvLayoutPreference(0))
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return MakeGradNode("_backward_Convolution", n,
                                               {ograds[0], n->inputs[0], n->inputs[1]},
                                               ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", ConvForward);

SYMNET_REGISTER_OP(_backward_Convolution)
    .set_num_inputs(3)
    .set_num_outputs([](const NodeAttrs& a) -> uint32_t {
      return Param<ConvolutionParam>(a).no_bias ? 2 : 3;
    })
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .add_arguments(ParamDocs<ConvolutionParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    // (x, dx) share the data side; dy is the output side
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            ConvLikeLayoutSlots<ConvolutionParam>({{{false, 1}, {true, 0}},
                                                                   {{false, 0}}}))
    .set_attr<FLayoutPreference>("FLayoutPreference", ConvLayoutPreference(1))
    .set_attr<FCompute>("FCompute<cpu>", ConvBackward);

size_t CudnnWorkspaceLimit(uint64_t workspace_mb, const dmlc::optional<int>& cudnn_tune,
                           size_t bind_cap_bytes) {
  constexpr int kFastest = 2;  // cudnn_tune's enum value
  if (cudnn_tune.has_value() && cudnn_tune.value() == kFastest) return bind_cap_bytes;
  const size_t own = static_cast<size_t>(workspace_mb) << 20;
  return own < bind_cap_bytes ? own : bind_cap_bytes;
}

size_t ConvWorkspaceLimit(const ConvolutionParam& p, size_t bind_cap_bytes) {
  return CudnnWorkspaceLimit(p.workspace, p.cudnn_tune, bind_cap_bytes);
}

}  // namespace ops
}  // namespace symnet
