/*!
 * \brief BatchNorm with MXNet's semantics: fix_gamma (default True) uses gamma = 1 and gives it a
 *  zero gradient; moving_mean/moving_var (auxiliary states) are updated in training forward as
 *  moving = momentum * moving + (1 - momentum) * batch (biased variance); use_global_stats
 *  normalizes with the moving statistics. The second and third outputs are the mean and, as in
 *  MXNet, 1 / sqrt(var + eps) of the variance used (VarianceToInvStd). Parameters and statistics
 *  are float32 for 16-bit data.
 */
#include "batch_norm.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../dnnl/dnnl_batch_norm.h"
#include "../scratch_output.h"
#include "../stage_f32.h"
#include "batch_norm_ref.h"
#include "data_layout.h"
#include "src/device/kernel_launch.h"
#include "symnet/storage.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(BatchNormParam);

namespace {

ChannelView View(const BatchNormParam& p, const TBlob& x) { return ChannelViewOf(x, p.axis); }

DType ParamType(DType data) { return data == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32; }

}  // namespace

void VarianceToInvStdInPlace(const TBlob& var, double eps) {
  SYMNET_REAL_TYPE_SWITCH(var.dtype_, P, {
    P* v = var.dptr<P>();
    for (int64_t c = 0; c < var.Size(); ++c) v[c] = VarianceToInvStd(v[c], eps);
  });
}

TBlob VarianceFromInvStd(const TBlob& invstd, double eps, std::vector<double>* buf) {
  buf->assign(static_cast<size_t>(invstd.Size()), 0.0);
  TBlob var = invstd;
  var.dptr_ = buf->data();
  SYMNET_REAL_TYPE_SWITCH(invstd.dtype_, P, {
    const P* s = invstd.dptr<P>();
    P* v = var.dptr<P>();
    for (int64_t c = 0; c < invstd.Size(); ++c) v[c] = InvStdToVariance(s[c], eps);
  });
  return var;
}

bool BatchNormShape(int axis, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[kData];
  if (!d.is_known()) return false;
  const Shape c{d[ChannelAxis(axis, d.ndim())]};
  for (int i = kGamma; i <= kMovingVar; ++i) AssignInShape(in, i, c);
  AssignOutShape(out, 0, d);
  AssignOutShape(out, 1, c);
  AssignOutShape(out, 2, c);
  return true;
}

bool BatchNormType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[kData];
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) return false;
  AssignType(in, kData, t, true);
  AssignType(out, 0, t, false);
  const DType p = ParamType(t);
  for (int i = kGamma; i <= kMovingVar; ++i) AssignType(in, i, p, true);
  AssignType(out, 1, p, false);
  AssignType(out, 2, p, false);
  return true;
}

namespace {

/*! \brief Plain loops (batch_norm_ref.h): any axis, channels-first or channels-last. */
template <typename T, typename P>
void ForwardRef(const BatchNormParam& p, bool batch_stats, const TBlob& xb, const P* gamma,
                const P* beta, P* mean, P* var, const TBlob& yb, OpReqType req) {
  const ChannelView v = View(p, xb);
  if (batch_stats) {
    std::vector<double> sums(2 * v.c);
    bn_ref::ChannelSums(v, xb.dptr<T>(), sums.data(), sums.data() + v.c);
    bn_ref::MomentsFromSums(v.c, sums.data(), sums.data() + v.c,
                            static_cast<double>(v.outer * v.inner), mean, var);
  }
  bn_ref::Normalize(v, xb.dptr<T>(), p.fix_gamma ? nullptr : gamma, beta, mean, var, p.eps,
                    yb.dptr<T>(), req);
}

template <typename T, typename P>
void BackwardRef(const BatchNormParam& p, bool batch_stats, const TBlob& dyb, const TBlob& xb,
                 const P* gamma, const P* mean, const P* var, const TBlob& dxb, P* dgamma, P* dbeta,
                 const std::vector<OpReqType>& req) {
  const ChannelView v = View(p, xb);
  const T *x = xb.dptr<T>(), *dy = dyb.dptr<T>();
  std::vector<double> sums(2 * v.c);
  double *sum_dy = sums.data(), *sum_dy_xhat = sums.data() + v.c;
  bn_ref::GradSums(v, dy, x, mean, var, p.eps, sum_dy, sum_dy_xhat);
  bn_ref::GradData(v, dy, x, p.fix_gamma ? nullptr : gamma, mean, var, p.eps, batch_stats,
                   static_cast<double>(v.outer * v.inner), sum_dy, sum_dy_xhat, dxb.dptr<T>(),
                   req[0]);
  for (int64_t c = 0; c < v.c; ++c) {
    PutReq(&dgamma[c], req[1], p.fix_gamma ? 0.0 : sum_dy_xhat[c]);
    PutReq(&dbeta[c], req[2], sum_dy[c]);
  }
}

struct BNForwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlBatchNormForward> bn;
  StoragePtr scratch;
};
struct BNBackwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlBatchNormBackward> bn;
  StoragePtr scratch;
};

/*!
 * \brief The data as oneDNN takes it: channels-last data (the channel axis last of 3 to 5 dims,
 *  as NHWC networks use BatchNorm(axis=3)) becomes its channels-first view flagged
 *  kChannelsLast (data_layout.h), normalized on axis 1; anything else is unchanged.
 */
TBlob DnnlData(const BatchNormParam& p, const TBlob& x, int* axis) {
  const int nd = x.ndim();
  *axis = p.axis;
  if (nd < 3 || nd > 5 || x.layout_ != Layout::kDefault || ChannelAxis(p, nd) != nd - 1) return x;
  *axis = 1;
  return ChannelsFirstView(x, true);
}

dnnl_util::BatchNormConfig MakeConfig(const BatchNormParam& p, const TBlob& x, bool global) {
  dnnl_util::BatchNormConfig c;
  c.shape = x.shape_;
  c.dtype = x.dtype_;
  c.layout = x.layout_;
  c.eps = static_cast<float>(p.eps);
  c.use_scale = !p.fix_gamma;
  c.global_stats = global;
  return c;
}

void BNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TBlob& x = in[kData];
  // an empty batch has no statistics (0/0): it is normalized like inference and leaves the
  // moving averages as they were, rather than averaging NaN into them
  const bool batch_stats = ctx.is_train && !p.use_global_stats && x.Size() > 0;
  const size_t cbytes = static_cast<size_t>(in[kGamma].Size()) * DTypeSize(in[kGamma].dtype_);
  if (!batch_stats) {  // normalize with the moving statistics, reported as mean/var outputs
    std::memcpy(out[1].dptr_, in[kMovingMean].dptr_, cbytes);
    std::memcpy(out[2].dptr_, in[kMovingVar].dptr_, cbytes);
  }
  int axis = 0;
  const TBlob xd = DnnlData(p, x, &axis);
  if (dnnl_util::BatchNormSupported(xd.shape_, xd.dtype_, axis)) {
    const auto cfg = MakeConfig(p, xd, !batch_stats);
    auto& st = ctx.GetState<BNForwardState>(
        [&] {
          auto* s = new BNForwardState();
          s->bn = std::make_unique<dnnl_util::DnnlBatchNormForward>(cfg);
          return s;
        },
        [&](const BNForwardState& s) { return s.bn->config() == cfg; });
    void* y = ScratchFor(&st.scratch, out[0], req[0]);
    st.bn->Run(x.dptr_, in[kGamma].dptr<float>(), in[kBeta].dptr<float>(), out[1].dptr<float>(),
               out[2].dptr<float>(), y);
    AddScratch(y, out[0], req[0]);
  } else if (x.dtype_ != DType::kFloat64 && x.dtype_ != DType::kFloat32) {
    return StagedF32Compute(BNForward, attrs, ctx, in, req, out);
  } else {
    SYMNET_REAL_TYPE_SWITCH(x.dtype_, T, {
      ForwardRef<T, T>(p, batch_stats, x, in[kGamma].dptr<T>(), in[kBeta].dptr<T>(),
                       out[1].dptr<T>(), out[2].dptr<T>(), out[0], req[0]);
    });
  }
  if (batch_stats) {  // moving = momentum * moving + (1 - momentum) * batch
    SYMNET_REAL_TYPE_SWITCH(in[kGamma].dtype_, P, {
      bn_ref::UpdateMoving(in[kGamma].Size(), p.momentum, out[1].dptr<P>(), out[2].dptr<P>(),
                           in[kMovingMean].dptr<P>(), in[kMovingVar].dptr<P>());
    });
  }
  VarianceToInvStdInPlace(out[2], p.eps);
}

/*! \brief Inputs (dy, x, gamma, mean, 1 / sqrt(var + eps)); outputs (dx, dgamma, dbeta). */
void BNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TBlob &dy = in[0], &x = in[1];
  const bool batch_stats = !p.use_global_stats;
  int axis = 0;
  const TBlob xd = DnnlData(p, x, &axis);
  const bool dnnl = dnnl_util::BatchNormSupported(xd.shape_, xd.dtype_, axis);
  // the staged call converts in[4] itself
  if (!dnnl && x.dtype_ != DType::kFloat64 && x.dtype_ != DType::kFloat32)
    return StagedF32Compute(BNBackward, attrs, ctx, in, req, out);
  std::vector<double> var_buf;
  const TBlob var = VarianceFromInvStd(in[4], p.eps, &var_buf);  // in[4] is 1/sqrt(var + eps)
  if (dnnl) {
    const auto cfg = MakeConfig(p, xd, !batch_stats);
    auto& st = ctx.GetState<BNBackwardState>(
        [&] {
          auto* s = new BNBackwardState();
          s->bn = std::make_unique<dnnl_util::DnnlBatchNormBackward>(cfg);
          return s;
        },
        [&](const BNBackwardState& s) { return s.bn->config() == cfg; });
    void* dx = ScratchFor(&st.scratch, out[0], req[0]);
    st.bn->Run(dy.dptr_, x.dptr_, in[2].dptr<float>(), in[3].dptr<float>(), var.dptr<float>(), dx,
               out[1].dptr<float>(), out[2].dptr<float>(), p.fix_gamma ? kNullOp : req[1], req[2]);
    AddScratch(dx, out[0], req[0]);
    if (p.fix_gamma && (req[1] == kWriteTo || req[1] == kWriteInplace))
      std::memset(out[1].dptr_, 0, out[1].Bytes());
  } else {
    SYMNET_REAL_TYPE_SWITCH(x.dtype_, T, {
      BackwardRef<T, T>(p, batch_stats, dy, x, in[2].dptr<T>(), in[3].dptr<T>(), var.dptr<T>(),
                        out[0], out[1].dptr<T>(), out[2].dptr<T>(), req);
    });
  }
}

/*! \brief Channels-last works when the channel axis is axis 1 of the logical shape. */
FLayoutSlots BNLayout(std::vector<int> ins, std::vector<int> outs) {
  const FLayoutSlots uniform = UniformLayout(ins, outs);
  return [uniform](const NodeAttrs& a) {
    return Param<BatchNormParam>(a).axis == 1 ? uniform(a) : LayoutSlots();
  };
}

}  // namespace

Op& BatchNormInputs(Op& op) {
  return op.set_num_inputs(5)
      .add_argument("data", "NDArray-or-Symbol", "Input data.")
      .add_argument("gamma", "NDArray-or-Symbol", "Scale per channel.")
      .add_argument("beta", "NDArray-or-Symbol", "Shift per channel.")
      .add_argument("moving_mean", "NDArray-or-Symbol", "Running mean (auxiliary state).")
      .add_argument("moving_var", "NDArray-or-Symbol", "Running variance (auxiliary state).")
      .set_attr<FListInputNames>("FListInputNames", [](const NodeAttrs&) {
        return std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"};
      });
}

Op& BatchNormLikeOp(Op& op, const char* backward_op, std::function<int(const NodeAttrs&)> axis_of,
                    std::function<bool(const NodeAttrs&)> output_mean_var) {
  std::string backward(backward_op);
  return BatchNormInputs(op)
      .set_num_outputs(3)
      .set_attr<FListOutputNames>("FListOutputNames",
                                  [](const NodeAttrs&) {
                                    return std::vector<std::string>{"output", "mean", "var"};
                                  })
      .set_attr<FNumVisibleOutputs>(
          "FNumVisibleOutputs",
          [output_mean_var](const NodeAttrs& a) -> uint32_t { return output_mean_var(a) ? 3 : 1; })
      .set_attr<FMutateInputs>("FMutateInputs",
                               [](const NodeAttrs&) {
                                 return std::vector<uint32_t>{3, 4};
                               })
      .set_attr<FInputVarAttrs>(
          "FInputVarAttrs",
          [](const NodeAttrs&, uint32_t index) -> std::map<std::string, std::string> {
            if (index == 3) return {{"__init__", "[\"zero\", {}]"}};
            if (index == 4) return {{"__init__", "[\"one\", {}]"}};
            return {};
          })
      .set_attr<FInferShape>(
          "FInferShape",
          [axis_of](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
            return BatchNormShape(axis_of(a), in, out);
          })
      .set_attr<FInferType>("FInferType", BatchNormType)
      .set_attr<FGradient>(
          "FGradient", [backward](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
            auto g = MakeGradNode(
                backward.c_str(), n,
                {ograds[0], n->inputs[0], n->inputs[1], NodeEntry{n, 1, 0}, NodeEntry{n, 2, 0}},
                ParamsOf(n));
            return std::vector<NodeEntry>{g[0], g[1], g[2], NoGradient(), NoGradient()};
          });
}

SYMNET_REGISTER_OP(BatchNorm)
    .describe(
        "Batch normalization: y = (x - mean) / sqrt(var + eps) * gamma + beta per channel, "
        "with batch statistics in training and moving statistics otherwise.")
    .set_attr_parser(ParamParser<BatchNormParam>)
    .add_arguments(ParamDocs<BatchNormParam>())
    .set_attr<FLayoutSlots>("FLayoutSlots", BNLayout({0}, {0}))
    .set_attr<FCompute>("FCompute<cpu>", BNForward);
// the rest of BatchNorm's registration, shared with SyncBatchNorm
static Op& batch_norm_attrs [[maybe_unused]] = BatchNormLikeOp(
    Op::Register("BatchNorm"), "_backward_BatchNorm",
    [](const NodeAttrs& a) { return Param<BatchNormParam>(a).axis; },
    [](const NodeAttrs& a) { return Param<BatchNormParam>(a).output_mean_var; });

SYMNET_REGISTER_OP(_backward_BatchNorm)
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<BatchNormParam>)
    .add_arguments(ParamDocs<BatchNormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", BNLayout({0, 1}, {0}))
    .set_attr<FCompute>("FCompute<cpu>", BNBackward);

}  // namespace ops
}  // namespace symnet
