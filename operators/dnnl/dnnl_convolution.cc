/*!
 * \brief oneDNN convolution: primitives choose their own weight/activation formats
 *  (format_tag::any); DnnlOperand reorders only where those differ from the callers' buffers.
 */
#include "dnnl_convolution.h"

#include <cmath>
#include <mutex>

namespace symnet {
namespace dnnl_util {

namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using md = dnnl::memory::desc;

struct ConvDescs {
  md src, dst, weights, bias;                  // user layouts
  md src_any, dst_any, weights_any, bias_any;  // what the primitive may choose
  dims strides, dilates, pad_l, pad_r;
};

/*!
 * \brief The activation formats a primitive is asked for: the planned ones (a blocked side as it
 *  is stored, a default side left to the primitive), any format for both sides, or both plain.
 *  The later ones are fallbacks for geometries whose planned formats have only oneDNN's
 *  reference kernel (on AVX2, the weight gradient of a 3x3 convolution over a 2x2 or 1x1 map in
 *  nChw8c: 0.55 s a call where the plain-format gemm kernel takes a millisecond); the operands
 *  then reorder from and to the stored layout.
 */
enum class Formats { kPlanned, kAny, kPlain };

ConvDescs MakeDescs(const ConvConfig& c, Formats formats = Formats::kPlanned) {
  const ops::ConvGeometry& g = c.geo;
  const auto dt = ToDnnl(c.dtype);
  ConvDescs d;
  dims src{g.n, g.c}, dst{g.n, g.o}, w;
  for (int i = 0; i < g.nsp(); ++i) {
    src.push_back(g.in[i]);
    dst.push_back(g.out[i]);
  }
  if (g.groups > 1)
    w = {g.groups, g.o / g.groups, g.c / g.groups};
  else
    w = {g.o, g.c};
  for (int i = 0; i < g.nsp(); ++i) {
    w.push_back(g.kernel[i]);
    d.strides.push_back(g.stride[i]);
    d.dilates.push_back(g.dilate[i] - 1);  // oneDNN counts the gaps: 0 = dense
    d.pad_l.push_back(g.pad[i]);
    // right padding that makes oneDNN's output size equal MXNet's (floor) output size
    d.pad_r.push_back((g.out[i] - 1) * g.stride[i] + (g.kernel[i] - 1) * g.dilate[i] + 1 - g.in[i] -
                      g.pad[i]);
  }
  d.src = md(src, dt, ActivationTag(g.nsp(), c.src_layout));
  d.dst = md(dst, dt, ActivationTag(g.nsp(), c.dst_layout));
  d.weights = md(w, dt, WeightTag(g.nsp(), g.groups > 1, c.weight_layout == Layout::kChannelsLast));
  d.bias = md({g.o}, dt, tag::x);
  // The primitive's activation formats: a side stored blocked (nChw16c) is taken as it is and a
  // default side lets the primitive choose (the stem's 3 input channels stay nchw). With a
  // channels-last side both sides are nhwc: oneDNN 2.6 has no fast kernel mixing nhwc with
  // other formats, and a default side is reordered.
  const bool nhwc = c.src_layout == Layout::kChannelsLast || c.dst_layout == Layout::kChannelsLast;
  auto prim = [&](const dims& shape, Layout l) {
    if (formats == Formats::kAny) return md(shape, dt, tag::any);
    if (formats == Formats::kPlain) return md(shape, dt, ActivationTag(g.nsp(), Layout::kDefault));
    if (nhwc) return md(shape, dt, ActivationTag(g.nsp(), Layout::kChannelsLast));
    if (ChannelBlock(l)) return md(shape, dt, ActivationTag(g.nsp(), l));
    return md(shape, dt, tag::any);
  };
  d.src_any = prim(src, c.src_layout);
  d.dst_any = prim(dst, c.dst_layout);
  d.weights_any = md(w, dt, tag::any);
  d.bias_any = d.bias;
  return d;
}

dnnl::convolution_forward::primitive_desc ForwardPD(const ConvConfig& c, const ConvDescs& d) {
  const auto pk =
      c.training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  if (c.bias) {
    return {dnnl::convolution_forward::desc(pk, dnnl::algorithm::convolution_direct, d.src_any,
                                            d.weights_any, d.bias_any, d.dst_any, d.strides,
                                            d.dilates, d.pad_l, d.pad_r),
            Engine()};
  }
  return {dnnl::convolution_forward::desc(pk, dnnl::algorithm::convolution_direct, d.src_any,
                                          d.weights_any, d.dst_any, d.strides, d.dilates, d.pad_l,
                                          d.pad_r),
          Engine()};
}

/*!
 * \brief make(descs) for the planned formats, or, where that primitive is oneDNN's reference
 *  kernel, for the first fallback formats that have another (the descriptors come back in *d).
 */
template <typename Make>
auto AvoidingReference(const ConvConfig& c, ConvDescs* d, Make make) {
  *d = MakeDescs(c);
  auto pd = make(*d);
  for (Formats f : {Formats::kAny, Formats::kPlain}) {
    if (!IsReference(pd)) break;
    ConvDescs alt = MakeDescs(c, f);
    try {
      auto other = make(alt);
      if (!IsReference(other)) {
        pd = other;
        *d = alt;
      }
    } catch (const dnnl::error&) {  // no implementation at these formats: keep looking
    }
  }
  return pd;
}

/*! \brief The training forward primitive that backward primitives take as their hint. */
dnnl::convolution_forward::primitive_desc TrainingHint(ConvConfig c, const ConvDescs& d) {
  c.training = true;
  return ForwardPD(c, d);
}

/*! \brief The Layout whose format tag describes `chosen` (kDefault when none does). */
Layout LayoutOf(const md& chosen, int nsp) {
  for (Layout l : {Layout::kBlocked16, Layout::kBlocked8, Layout::kChannelsLast})
    if (chosen == md(chosen.dims(), chosen.data_type(), ActivationTag(nsp, l))) return l;
  return Layout::kDefault;
}

}  // namespace

ConvConfig MakeConvConfig(const ops::ConvGeometry& geo, const TBlob& src, const TBlob& w,
                          const TBlob& dst, bool bias, bool training) {
  ConvConfig c;
  c.geo = geo;
  c.dtype = src.dtype_;
  c.src_layout = src.layout_;
  c.dst_layout = dst.layout_;
  c.weight_layout = w.layout_;
  c.bias = bias;
  c.training = training;
  return c;
}

std::pair<Layout, Layout> PreferredConvLayouts(const ops::ConvGeometry& geo, DType dtype) {
  // a ResNet has a few dozen distinct geometries and every bind asks for all of them
  static std::mutex mu;
  static std::vector<std::pair<ConvConfig, std::pair<Layout, Layout>>> cache;
  ConvConfig c;
  c.geo = geo;
  c.dtype = dtype;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& kv : cache)
    if (kv.first == c) return kv.second;
  const ConvDescs d = MakeDescs(c);  // both activation sides format_tag::any
  const auto pd = ForwardPD(c, d);
  const std::pair<Layout, Layout> r{LayoutOf(pd.src_desc(), geo.nsp()),
                                    LayoutOf(pd.dst_desc(), geo.nsp())};
  cache.emplace_back(c, r);
  return r;
}

DnnlConvForward::DnnlConvForward(const ConvConfig& cfg) : cfg_(cfg) {
  ConvDescs d;
  pd_ = Noted("convolution forward",
              AvoidingReference(cfg, &d, [&](const ConvDescs& x) { return ForwardPD(cfg, x); }));
  prim_ = dnnl::convolution_forward(pd_);
  src_.Init(d.src, pd_.src_desc(), false);
  weights_.Init(d.weights, pd_.weights_desc(), false);
  dst_.Init(d.dst, pd_.dst_desc(), true);
  if (cfg.bias) bias_ = dnnl::memory(d.bias, Engine(), DNNL_MEMORY_NONE);
}

void DnnlConvForward::Run(const void* x, const void* w, const void* b, void* y, OpReqType req,
                          const ContentVersion* w_version) {
  if (req == kNullOp) return;
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src_.Input(x)},
                                             {DNNL_ARG_WEIGHTS, weights_.CachedInput(w, w_version)},
                                             {DNNL_ARG_DST, dst_.Output(y, req)}};
  if (cfg_.bias) {
    bias_.set_data_handle(const_cast<void*>(b));
    args[DNNL_ARG_BIAS] = bias_;
  }
  prim_.execute(Stream(), args);
  dst_.Commit(y, req);
  Stream().wait();
  src_.ReleaseLargeBuffer(kStagingKeepBytes);
  dst_.ReleaseLargeBuffer(kStagingKeepBytes);
}

DnnlFusedConvForward::DnnlFusedConvForward(const ConvConfig& cfg, bool relu, bool sum)
    : cfg_(cfg), sum_(sum) {
  SYMNET_CHECK(!cfg.training) << "a convolution with BatchNorm folded in only runs inference";
  const ConvDescs d = MakeDescs(cfg);
  const ops::ConvGeometry& g = cfg.geo;
  const md bias({g.o}, dnnl::memory::data_type::f32, tag::x);  // folded: float32 whatever the data
  dnnl::primitive_attr attr;
  if (relu || sum) {
    dnnl::post_ops ops;
    if (sum) ops.append_sum(1.0f);
    if (relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  pd_ = dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                      bias, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r),
      attr, Engine());
  // the sum post-op adds what the primitive's destination holds, which is the caller's buffer
  // only when the primitive writes the caller's format; otherwise the caller runs the chain
  // unfused (usable() is false) rather than pay a reorder of the residual
  usable_ = !sum || pd_.dst_desc() == d.dst;
  if (!usable_) return;
  Noted("convolution forward (BatchNorm folded)", pd_);
  prim_ = dnnl::convolution_forward(pd_);
  src_.Init(d.src, pd_.src_desc(), false);
  dst_.Init(d.dst, pd_.dst_desc(), true);
  // per output channel: dim 0 of (O, I, ...) weights, dims 0 and 1 of grouped (G, O/G, I/G, ...)
  dnnl::primitive_attr scale_attr;
  scale_attr.set_output_scales(g.groups > 1 ? 3 : 1, {DNNL_RUNTIME_F32_VAL});
  const md scales({g.o}, dnnl::memory::data_type::f32, tag::x);
  scale_weights_ =
      dnnl::reorder(Noted("reorder (BatchNorm scale into weights)",
                          dnnl::reorder::primitive_desc(Engine(), d.weights, Engine(),
                                                        pd_.weights_desc(), scale_attr)));
  weights_buf_ = AllocStorage(pd_.weights_desc().get_size(), Device::CPU());
  weights_ = dnnl::memory(pd_.weights_desc(), Engine(), weights_buf_->ptr());
  user_weights_ = dnnl::memory(d.weights, Engine(), DNNL_MEMORY_NONE);
  scale_.resize(g.o);
  shift_.resize(g.o);
  if (cfg.bias) conv_bias_.resize(g.o);
  scales_ = dnnl::memory(scales, Engine(), scale_.data());
  bias_ = dnnl::memory(bias, Engine(), shift_.data());
}

void DnnlFusedConvForward::Run(const void* x, const void* w, const void* b, const float* gamma,
                               const float* beta, const float* mean, const float* var, float eps,
                               bool fix_gamma, void* y, OpReqType req,
                               const ContentVersion* w_version) {
  if (req == kNullOp) return;
  const uint64_t stamp = w_version && WeightCacheEnabled() ? w_version->stamp() : 0;
  if (cfg_.bias)
    ConvertElements(b, cfg_.dtype, conv_bias_.data(), DType::kFloat32, conv_bias_.size());
  for (size_t o = 0; o < scale_.size(); ++o) {
    const float s = (fix_gamma ? 1.0f : gamma[o]) / std::sqrt(var[o] + eps);
    scale_[o] = s;
    shift_[o] = beta[o] + ((cfg_.bias ? conv_bias_[o] : 0.0f) - mean[o]) * s;
  }
  // the folded weights are a function of w and the scale alone: rebuilt when either changed
  const bool current = stamp != 0 && stamp == w_stamp_ && w == w_ptr_ && scale_ == w_scale_;
  CountWeightReorder(current);
  if (!current) {
    user_weights_.set_data_handle(const_cast<void*>(w));
    scale_weights_.execute(Stream(), {{DNNL_ARG_FROM, user_weights_},
                                      {DNNL_ARG_TO, weights_},
                                      {DNNL_ARG_ATTR_OUTPUT_SCALES, scales_}});
    w_ptr_ = w;
    w_stamp_ = stamp;
    w_scale_ = scale_;
  }
  // a sum post-op reads y, so y is written in place
  const OpReqType r = sum_ ? kWriteInplace : req;
  prim_.execute(Stream(), {{DNNL_ARG_SRC, src_.Input(x)},
                           {DNNL_ARG_WEIGHTS, weights_},
                           {DNNL_ARG_BIAS, bias_},
                           {DNNL_ARG_DST, dst_.Output(y, r)}});
  dst_.Commit(y, r);
  Stream().wait();
}

DnnlConvBackward::DnnlConvBackward(const ConvConfig& cfg) : cfg_(cfg) {}

void DnnlConvBackward::InitWeights() {
  // made on first use, like the data half: Deconvolution's forward runs only the data half
  const ConvConfig& cfg = cfg_;
  using PD = dnnl::convolution_backward_weights::primitive_desc;
  ConvDescs d;
  weights_pd_ = AvoidingReference(cfg, &d, [&](const ConvDescs& x) {
    const auto hint = TrainingHint(cfg, x);
    if (cfg.bias) {
      return PD(dnnl::convolution_backward_weights::desc(
                    dnnl::algorithm::convolution_direct, x.src_any, x.weights_any, x.bias_any,
                    x.dst_any, x.strides, x.dilates, x.pad_l, x.pad_r),
                Engine(), hint);
    }
    return PD(dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct,
                                                       x.src_any, x.weights_any, x.dst_any,
                                                       x.strides, x.dilates, x.pad_l, x.pad_r),
              Engine(), hint);
  });
  weights_prim_ =
      dnnl::convolution_backward_weights(Noted("convolution backward weights", weights_pd_));
  d_dst_weights_.Init(d.dst, weights_pd_.diff_dst_desc(), false);
  src_.Init(d.src, weights_pd_.src_desc(), false);
  d_weights_.Init(d.weights, weights_pd_.diff_weights_desc(), true);
  if (cfg.bias) d_bias_.Init(d.bias, weights_pd_.diff_bias_desc(), true);
  weights_ready_ = true;
}

void DnnlConvBackward::InitData() {
  // made on first use: a data gradient nobody reads (the stem's, whose 3 input channels have
  // no fast oneDNN kernel) is never requested, so its primitive is never made
  ConvDescs d;
  const auto data_pd = AvoidingReference(cfg_, &d, [&](const ConvDescs& x) {
    return dnnl::convolution_backward_data::primitive_desc(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, x.src_any,
                                              x.weights_any, x.dst_any, x.strides, x.dilates,
                                              x.pad_l, x.pad_r),
        Engine(), TrainingHint(cfg_, x));
  });
  data_prim_ = dnnl::convolution_backward_data(Noted("convolution backward data", data_pd));
  d_dst_data_.Init(d.dst, data_pd.diff_dst_desc(), false);
  weights_.Init(d.weights, data_pd.weights_desc(), false);
  d_src_.Init(d.src, data_pd.diff_src_desc(), true);
  data_ready_ = true;
}

void DnnlConvBackward::Run(const void* dy, const void* x, const void* w, void* dx, void* dw,
                           void* db, const std::vector<OpReqType>& req,
                           const ContentVersion* w_version) {
  if (req[0] != kNullOp) {
    if (!data_ready_) InitData();
    // backward data wants another weight format than forward (on AVX-512 OIhw16o16i against
    // OIhw16i16o; either primitive given the other's runs oneDNN's reference kernel), so it
    // keeps a copy of its own
    data_prim_.execute(Stream(), {{DNNL_ARG_DIFF_DST, d_dst_data_.Input(dy)},
                                  {DNNL_ARG_WEIGHTS, weights_.CachedInput(w, w_version)},
                                  {DNNL_ARG_DIFF_SRC, d_src_.Output(dx, req[0])}});
    d_src_.Commit(dx, req[0]);
  }
  const bool want_bias = cfg_.bias && req.size() > 2 && req[2] != kNullOp;
  if (req[1] != kNullOp || want_bias) {
    if (!weights_ready_) InitWeights();
    // the primitive computes both; a skipped one lands in the owned buffer (see Output)
    const OpReqType rw = req[1];
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DIFF_DST, d_dst_weights_.Input(dy)},
                                               {DNNL_ARG_SRC, src_.Input(x)},
                                               {DNNL_ARG_DIFF_WEIGHTS, d_weights_.Output(dw, rw)}};
    if (cfg_.bias) args[DNNL_ARG_DIFF_BIAS] = d_bias_.Output(db, req[2]);
    weights_prim_.execute(Stream(), args);
    d_weights_.Commit(dw, req[1]);
    if (cfg_.bias) d_bias_.Commit(db, req[2]);
  }
  Stream().wait();
  for (DnnlOperand* a : {&d_dst_data_, &d_src_, &d_dst_weights_, &src_})
    a->ReleaseLargeBuffer(kStagingKeepBytes);
}

}  // namespace dnnl_util
}  // namespace symnet
