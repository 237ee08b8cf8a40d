/*!
 * \brief _FusedConvBN: Convolution -> BatchNorm (-> + residual) (-> ReLU) as one node, made by
 *  the bind-time pass FuseConvBatchNorm for executors that compute no gradient. In inference it
 *  runs one oneDNN convolution with the BatchNorm folded into its weights and bias and the
 *  residual sum and ReLU as post-ops (no BatchNorm, add or ReLU pass over the activations). A
 * forward with is_train=True (batch statistics, moving averages updated) and data oneDNN does not
 * run natively go through the three original kernels in turn, so the node means exactly what the
 * nodes it replaced meant.
 *
 *  Inputs: the convolution's (data, weight[, bias]), then BatchNorm's (gamma, beta, moving_mean,
 *  moving_var), then with_sum the residual (its buffer may be the output's). Attributes: the
 *  convolution's by their names, BatchNorm's prefixed "bn_", with_sum and with_relu.
 */
#include "conv_bn_fused.h"

#include <cstring>

#include "../dnnl/dnnl_convolution.h"
#include "batch_norm.h"
#include "convolution.h"

namespace symnet {
namespace ops {

namespace {

constexpr char kBNPrefix[] = "bn_";

/*! \brief The absorbed nodes' attributes, each parsed by its own op. */
struct FusedConvBNParam {
  NodeAttrs conv, bn, add, relu;
  bool with_relu = false;
  bool with_sum = false;  // a last input, the residual, added before the ReLU
};

NodeAttrs SubAttrs(const char* op, const std::string& name, std::map<std::string, std::string> d) {
  NodeAttrs a;
  a.op = Op::Get(op);
  a.name = name;
  a.dict = std::move(d);
  ParseNodeAttrs(&a);
  return a;
}

void ParseFused(NodeAttrs* attrs) {
  std::map<std::string, std::string> conv, bn;
  FusedConvBNParam p;
  const size_t np = sizeof(kBNPrefix) - 1;
  for (const auto& kv : attrs->dict) {
    const bool on = kv.second == "1" || kv.second == "True" || kv.second == "true";
    if (kv.first == "with_relu")
      p.with_relu = on;
    else if (kv.first == "with_sum")
      p.with_sum = on;
    else if (kv.first.compare(0, np, kBNPrefix) == 0)
      bn[kv.first.substr(np)] = kv.second;
    else
      conv[kv.first] = kv.second;
  }
  p.conv = SubAttrs("Convolution", attrs->name, conv);
  p.bn = SubAttrs("BatchNorm", attrs->name, bn);
  p.relu = SubAttrs("Activation", attrs->name, {{"act_type", "relu"}});
  p.add = SubAttrs("elemwise_add", attrs->name, {});
  SYMNET_CHECK(!IsChannelsLast(Param<ConvolutionParam>(p.conv).layout) &&
               Param<BatchNormParam>(p.bn).axis == 1)
      << "_FusedConvBN (node '" << attrs->name << "') takes channels-first convolutions only";
  attrs->parsed = p;
}

const FusedConvBNParam& FP(const NodeAttrs& a) { return Param<FusedConvBNParam>(a); }
size_t NumConvInputs(const NodeAttrs& a) {
  return Param<ConvolutionParam>(FP(a).conv).no_bias ? 2 : 3;
}
size_t NumInputs(const NodeAttrs& a) { return NumConvInputs(a) + 4 + (FP(a).with_sum ? 1 : 0); }

/*!
 * \brief Runs the sub-ops' inference rules `key` on the slices [0, nc) and (conv out, nc...);
 *  `unknown` is the value of an entry not inferred yet.
 */
template <typename T>
bool InferBoth(const NodeAttrs& attrs, const char* key, const T& unknown, std::vector<T>* in,
               std::vector<T>* out) {
  using F = std::function<bool(const NodeAttrs&, std::vector<T>*, std::vector<T>*)>;
  const FusedConvBNParam& p = FP(attrs);
  const size_t nc = NumConvInputs(attrs);
  std::vector<T> cin(in->begin(), in->begin() + nc), cout(1, unknown);
  const bool conv_done = (*p.conv.op->attr<F>(key))(p.conv, &cin, &cout);
  std::copy(cin.begin(), cin.end(), in->begin());
  if (!conv_done) return false;
  std::vector<T> bin{cout[0]}, bout{(*out)[0], unknown, unknown};
  bin.insert(bin.end(), in->begin() + nc, in->begin() + nc + 4);
  const bool bn_done = (*p.bn.op->attr<F>(key))(p.bn, &bin, &bout);
  std::copy(bin.begin() + 1, bin.end(), in->begin() + nc);
  (*out)[0] = bout[0];
  if (!p.with_sum) return bn_done;
  std::vector<T> ain{bout[0], in->back()}, aout{bout[0]};  // the residual: the output's twin
  const bool add_done = (*p.add.op->attr<F>(key))(p.add, &ain, &aout);
  in->back() = ain[1];
  return bn_done && add_done;
}

struct FusedConvBNState : public OpState {
  std::unique_ptr<dnnl_util::DnnlFusedConvForward> fused;
  // the unfused route: each kernel's own state slot, the convolution's output, BatchNorm's
  // batch mean and variance
  std::unique_ptr<OpState> conv_slot, bn_slot, add_slot, relu_slot;
  StoragePtr conv_out, bn_out, stats;
};

/*! \brief The chain's own kernels in turn (training forward, float64, staged 16-bit, GPU, ...). */
void RunUnfused(FusedConvBNState* st, const FusedConvBNParam& p, const OpContext& ctx,
                const std::vector<TBlob>& in, size_t nc, OpReqType req, const TBlob& y) {
  const char* key = FComputeKey(ctx.dev);
  auto grow = [&](StoragePtr* s, size_t bytes) {
    if (!*s || (*s)->bytes() < bytes) {
      s->reset();  // free before allocating the larger one
      *s = AllocStorage(bytes, ctx.dev);
    }
    return (*s)->ptr();
  };
  TBlob conv_y = y;
  conv_y.dptr_ = grow(&st->conv_out, y.Bytes());
  conv_y.version_ = nullptr;  // scratch, not y's memory
  OpContext sub = ctx;
  sub.state = &st->conv_slot;
  (*p.conv.op->attr<FCompute>(key))(p.conv, sub, std::vector<TBlob>(in.begin(), in.begin() + nc),
                                    {kWriteTo}, {conv_y});
  const int64_t c = y.shape_[1];
  const size_t stat_bytes = static_cast<size_t>(c) * DTypeSize(in[nc].dtype_);
  char* stats = static_cast<char*>(grow(&st->stats, 2 * stat_bytes));
  std::vector<TBlob> bn_in{conv_y};
  bn_in.insert(bn_in.end(), in.begin() + nc, in.begin() + nc + 4);
  // with a residual BatchNorm writes aside: y may share its buffer with the residual
  TBlob bn_y = y;
  if (p.with_sum) {
    bn_y.dptr_ = grow(&st->bn_out, y.Bytes());
    bn_y.version_ = nullptr;
  }
  const TBlob mean(stats, Shape{c}, in[nc].dtype_),
      var(stats + stat_bytes, Shape{c}, in[nc].dtype_);
  sub.state = &st->bn_slot;
  (*p.bn.op->attr<FCompute>(key))(
      p.bn, sub, bn_in, {p.with_sum ? kWriteTo : req, kWriteTo, kWriteTo}, {bn_y, mean, var});
  if (p.with_sum) {
    const TBlob& residual = in.back();
    sub.state = &st->add_slot;
    (*p.add.op->attr<FCompute>(key))(p.add, sub, {bn_y, residual},
                                     {residual.dptr_ == y.dptr_ ? kWriteInplace : req}, {y});
  }
  if (!p.with_relu) return;
  sub.state = &st->relu_slot;
  (*p.relu.op->attr<FCompute>(key))(p.relu, sub, {y}, {kWriteInplace}, {y});
}

}  // namespace

void FusedConvBNCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FusedConvBNParam& p = FP(attrs);
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  SYMNET_CHECK(req[0] != kAddTo) << "_FusedConvBN (node '" << attrs.name
                                 << "') writes its output; it does not accumulate";
  const size_t nc = NumConvInputs(attrs);
  auto& st = ctx.GetState<FusedConvBNState>([] { return new FusedConvBNState(); },
                                            [](const FusedConvBNState&) { return true; });
  const DType t = in[0].dtype_;
  bool fold = !ctx.is_train && ctx.dev.type == Device::kCPU && ConvUsesDnnl(t) && in[1].dtype_ == t;
  for (size_t i = nc; i < nc + 4; ++i) fold = fold && in[i].dtype_ == DType::kFloat32;
  if (!fold) return RunUnfused(&st, p, ctx, in, nc, req[0], out[0]);
  const ConvolutionParam& cp = Param<ConvolutionParam>(p.conv);
  const BatchNormParam& bp = Param<BatchNormParam>(p.bn);
  const auto cfg = dnnl_util::MakeConvConfig(MakeConvGeometry(cp, in[0].shape_), in[0], in[1],
                                             out[0], !cp.no_bias, false);
  if (!st.fused || !(st.fused->config() == cfg))
    st.fused = std::make_unique<dnnl_util::DnnlFusedConvForward>(cfg, p.with_relu, p.with_sum);
  if (!st.fused->usable()) return RunUnfused(&st, p, ctx, in, nc, req[0], out[0]);
  if (p.with_sum) {  // the sum post-op adds what y holds: the residual (unless y is its buffer)
    const TBlob& residual = in.back();
    SYMNET_CHECK(residual.layout_ == out[0].layout_ && residual.dtype_ == out[0].dtype_)
        << "_FusedConvBN (node '" << attrs.name << "'): the residual's layout and dtype must be "
        << "the output's";
    if (residual.dptr_ != out[0].dptr_) std::memcpy(out[0].dptr_, residual.dptr_, out[0].Bytes());
  }
  st.fused->Run(in[0].dptr_, in[1].dptr_, cp.no_bias ? nullptr : in[2].dptr_, in[nc].dptr<float>(),
                in[nc + 1].dptr<float>(), in[nc + 2].dptr<float>(), in[nc + 3].dptr<float>(),
                bp.eps, bp.fix_gamma, out[0].dptr_, req[0], in[1].version_);
}

SYMNET_REGISTER_OP(_FusedConvBN)
    .describe(
        "Internal: Convolution, BatchNorm, an optional residual sum and an optional ReLU as one "
        "node, made at bind time for executors that compute no gradient (BindOptions::fuse); "
        "BatchNorm is folded into the convolution in inference.")
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t { return NumInputs(a); })
    .set_attr_parser(ParseFused)
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)
    .set_attr<FListInputNames>(
        "FListInputNames",
        [](const NodeAttrs& a) {
          std::vector<std::string> names{"data", "weight"};
          if (NumConvInputs(a) == 3) names.push_back("bias");
          for (const char* n : {"gamma", "beta", "moving_mean", "moving_var"}) names.push_back(n);
          return names;
        })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs& a) {
                               const auto nc = static_cast<uint32_t>(NumConvInputs(a));
                               return std::vector<uint32_t>{nc + 2, nc + 3};
                             })
    .set_attr<FInferShape>("FInferShape",
                           [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
                             return InferBoth<Shape>(a, "FInferShape", Shape(), in, out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
                            return InferBoth<DType>(a, "FInferType", DType::kUnknown, in, out);
                          })
    // as Convolution: data and output each in the layout oneDNN's convolution picks for them;
    // the residual in the output's
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            [](const NodeAttrs& a) {
                              LayoutSlots s;
                              s.groups = {{{false, 0}}, {{true, 0}}};
                              if (FP(a).with_sum)
                                s.groups[1].emplace_back(false, static_cast<int>(NumInputs(a) - 1));
                              s.prefer = true;
                              return s;
                            })
    .set_attr<FInplaceOption>("FInplaceOption",
                              [](const NodeAttrs& a) {
                                std::vector<std::pair<int, int>> r;
                                if (FP(a).with_sum)
                                  r.emplace_back(static_cast<int>(NumInputs(a) - 1), 0);
                                return r;
                              })
    .set_attr<FLayoutPreference>("FLayoutPreference",
                                 [](const NodeAttrs& a, const std::vector<Shape>& in,
                                    const std::vector<DType>& types) -> std::vector<Layout> {
                                   if (!in.at(0).is_known()) return {};
                                   return DnnlConvLayouts(
                                       MakeConvGeometry(Param<ConvolutionParam>(FP(a).conv), in[0]),
                                       types.at(0));
                                 })
    .set_attr<FCompute>("FCompute<cpu>", FusedConvBNCompute);

}  // namespace ops
}  // namespace symnet
