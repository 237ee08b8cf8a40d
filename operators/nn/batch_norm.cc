/*!
 * \brief BatchNorm with MXNet's semantics: fix_gamma (default True) uses gamma = 1 and gives it a
 *  zero gradient; moving_mean/moving_var (auxiliary states) are updated in training forward as
 *  moving = momentum * moving + (1 - momentum) * batch (biased variance); use_global_stats
 *  normalizes with the moving statistics. The second and third outputs are the mean and the
 *  variance used. Parameters and statistics are float32 for 16-bit data.
 */
#include "batch_norm.h"

#include <cmath>
#include <cstring>

#include "../dnnl/dnnl_batch_norm.h"
#include "../scratch_output.h"
#include "../stage_f32.h"
#include "data_layout.h"
#include "src/device/kernel_launch.h"
#include "symnet/storage.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(BatchNormParam);

namespace {

ChannelView View(const BatchNormParam& p, const TBlob& x) {
  const Shape& s = x.shape_;
  const int a = ChannelAxis(p, s.ndim());
  if (x.channels_last()) return {s.Size() / s[1], s[1], 1};
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim())};
}

DType ParamType(DType data) { return data == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32; }

bool BNShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[kData];
  if (!d.is_known()) return false;
  const Shape c{d[ChannelAxis(Param<BatchNormParam>(attrs), d.ndim())]};
  for (int i = kGamma; i <= kMovingVar; ++i) AssignInShape(in, i, c);
  AssignOutShape(out, 0, d);
  AssignOutShape(out, 1, c);
  AssignOutShape(out, 2, c);
  return true;
}

bool BNType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
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

/*! \brief Plain loops: statistics in double, any axis, channels-first or channels-last. */
template <typename T, typename P>
void ForwardRef(const BatchNormParam& p, bool batch_stats, const TBlob& xb, const P* gamma,
                const P* beta, P* mean, P* var, const TBlob& yb, OpReqType req) {
  const ChannelView v = View(p, xb);
  const T* x = xb.dptr<T>();
  T* y = yb.dptr<T>();
  const double count = static_cast<double>(v.outer * v.inner);
#pragma omp parallel for
  for (int64_t c = 0; c < v.c; ++c) {
    if (batch_stats) {
      double s = 0, ss = 0;
      for (int64_t o = 0; o < v.outer; ++o)
        for (int64_t i = 0; i < v.inner; ++i) {
          const double val = static_cast<AccType<T>>(x[(o * v.c + c) * v.inner + i]);
          s += val;
          ss += val * val;
        }
      const double m = s / count;
      mean[c] = static_cast<P>(m);
      var[c] = static_cast<P>(std::max(ss / count - m * m, 0.0));
    }
    const double g = p.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    const double scale = g / std::sqrt(static_cast<double>(var[c]) + p.eps);
    const double shift = static_cast<double>(beta[c]) - static_cast<double>(mean[c]) * scale;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t k = (o * v.c + c) * v.inner + i;
        const double val = static_cast<AccType<T>>(x[k]) * scale + shift;
        if (req == kAddTo) {
          AssignReq<kAddTo>(&y[k], static_cast<AccType<T>>(val));
        } else {
          AssignReq<kWriteTo>(&y[k], static_cast<AccType<T>>(val));
        }
      }
  }
}

template <typename T, typename P>
void BackwardRef(const BatchNormParam& p, bool batch_stats, const TBlob& dyb, const TBlob& xb,
                 const P* gamma, const P* mean, const P* var, const TBlob& dxb, P* dgamma, P* dbeta,
                 const std::vector<OpReqType>& req) {
  const ChannelView v = View(p, xb);
  const T* x = xb.dptr<T>();
  const T* dy = dyb.dptr<T>();
  T* dx = dxb.dptr<T>();
  const double count = static_cast<double>(v.outer * v.inner);
  auto put = [](auto* dst, OpReqType r, double val) {
    using D = std::remove_pointer_t<decltype(dst)>;
    if (r == kAddTo) {
      AssignReq<kAddTo>(dst, static_cast<AccType<D>>(val));
    } else if (r != kNullOp) {
      AssignReq<kWriteTo>(dst, static_cast<AccType<D>>(val));
    }
  };
#pragma omp parallel for
  for (int64_t c = 0; c < v.c; ++c) {
    const double m = static_cast<double>(mean[c]);
    const double invstd = 1.0 / std::sqrt(static_cast<double>(var[c]) + p.eps);
    const double g = p.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t k = (o * v.c + c) * v.inner + i;
        const double d = static_cast<AccType<T>>(dy[k]);
        sum_dy += d;
        sum_dy_xhat += d * (static_cast<AccType<T>>(x[k]) - m) * invstd;
      }
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t k = (o * v.c + c) * v.inner + i;
        const double d = static_cast<AccType<T>>(dy[k]);
        double val = d * g * invstd;
        if (batch_stats) {
          const double xhat = (static_cast<AccType<T>>(x[k]) - m) * invstd;
          val = g * invstd * (d - sum_dy / count - xhat * sum_dy_xhat / count);
        }
        put(&dx[k], req[0], val);
      }
    put(&dgamma[c], req[1], p.fix_gamma ? 0.0 : sum_dy_xhat);
    put(&dbeta[c], req[2], sum_dy);
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
      P* mm = in[kMovingMean].dptr<P>();
      P* mv = in[kMovingVar].dptr<P>();
      const P* bm = out[1].dptr<P>();
      const P* bv = out[2].dptr<P>();
      const P mo = static_cast<P>(p.momentum);
      for (int64_t c = 0; c < in[kGamma].Size(); ++c) {
        mm[c] = mo * mm[c] + (P(1) - mo) * bm[c];
        mv[c] = mo * mv[c] + (P(1) - mo) * bv[c];
      }
    });
  }
}

/*! \brief Inputs (dy, x, gamma, mean, var); outputs (dx, dgamma, dbeta). */
void BNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TBlob &dy = in[0], &x = in[1];
  const bool batch_stats = !p.use_global_stats;
  int axis = 0;
  const TBlob xd = DnnlData(p, x, &axis);
  if (dnnl_util::BatchNormSupported(xd.shape_, xd.dtype_, axis)) {
    const auto cfg = MakeConfig(p, xd, !batch_stats);
    auto& st = ctx.GetState<BNBackwardState>(
        [&] {
          auto* s = new BNBackwardState();
          s->bn = std::make_unique<dnnl_util::DnnlBatchNormBackward>(cfg);
          return s;
        },
        [&](const BNBackwardState& s) { return s.bn->config() == cfg; });
    void* dx = ScratchFor(&st.scratch, out[0], req[0]);
    st.bn->Run(dy.dptr_, x.dptr_, in[2].dptr<float>(), in[3].dptr<float>(), in[4].dptr<float>(), dx,
               out[1].dptr<float>(), out[2].dptr<float>(), p.fix_gamma ? kNullOp : req[1], req[2]);
    AddScratch(dx, out[0], req[0]);
    if (p.fix_gamma && (req[1] == kWriteTo || req[1] == kWriteInplace))
      std::memset(out[1].dptr_, 0, out[1].Bytes());
  } else if (x.dtype_ != DType::kFloat64 && x.dtype_ != DType::kFloat32) {
    StagedF32Compute(BNBackward, attrs, ctx, in, req, out);
  } else {
    SYMNET_REAL_TYPE_SWITCH(x.dtype_, T, {
      BackwardRef<T, T>(p, batch_stats, dy, x, in[2].dptr<T>(), in[3].dptr<T>(), in[4].dptr<T>(),
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

SYMNET_REGISTER_OP(BatchNorm)
    .describe(
        "Batch normalization: y = (x - mean) / sqrt(var + eps) * gamma + beta per channel, "
        "with batch statistics in training and moving statistics otherwise.")
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<BatchNormParam>)
    .add_arguments(ParamDocs<BatchNormParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale per channel.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift per channel.")
    .add_argument("moving_mean", "NDArray-or-Symbol", "Running mean (auxiliary state).")
    .add_argument("moving_var", "NDArray-or-Symbol", "Running variance (auxiliary state).")
    .set_attr<FListInputNames>(
        "FListInputNames",
        [](const NodeAttrs&) {
          return std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"};
        })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "mean", "var"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs& a) -> uint32_t {
                                    return Param<BatchNormParam>(a).output_mean_var ? 3 : 1;
                                  })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs&) {
                               return std::vector<uint32_t>{3, 4};
                             })
    .set_attr<FInputVarAttrs>("FInputVarAttrs",
                              [](const NodeAttrs&,
                                 uint32_t index) -> std::map<std::string, std::string> {
                                if (index == 3) return {{"__init__", "[\"zero\", {}]"}};
                                if (index == 4) return {{"__init__", "[\"one\", {}]"}};
                                return {};
                              })
    .set_attr<FInferShape>("FInferShape", BNShape)
    .set_attr<FInferType>("FInferType", BNType)
    .set_attr<FLayoutSlots>("FLayoutSlots", BNLayout({0}, {0}))
    .set_attr<FGradient>(
        "FGradient",
        [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
          auto g = MakeGradNode(
              "_backward_BatchNorm", n,
              {ograds[0], n->inputs[0], n->inputs[1], NodeEntry{n, 1, 0}, NodeEntry{n, 2, 0}},
              ParamsOf(n));
          return std::vector<NodeEntry>{g[0], g[1], g[2], NoGradient(), NoGradient()};
        })
    .set_attr<FCompute>("FCompute<cpu>", BNForward);

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
