/*!
 * \brief The fused RNN op (MXNet's names, attributes and packed parameters): registration,
 *  shape and type rules, and the CPU kernels: oneDNN's RNN primitives (dnnl_util::DnnlRnn) for
 *  float32, and for bfloat16 where oneDNN runs it natively, else the shared algorithm of rnn.h
 *  (float64, float16, bfloat16 without native kernels), whose GEMMs run
 *  through dnnl_util::GemmPlan (oneDNN matmul in float32/bfloat16, staged float32 for float16, a
 *  loop for float64). RnnCpuImpl() (SYMNET_RNN_IMPL) forces one of the two.
 */
#include "rnn.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

#include "../cudnn/cudnn_rnn.h"
#include "../dnnl/dnnl_gemm.h"
#include "../dnnl/dnnl_rnn.h"
#include "symnet/runtime.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(RNNParam);

namespace {

void RNNParser(NodeAttrs* attrs) {
  ParamParser<RNNParam>(attrs);
  const RNNParam& p = Param<RNNParam>(*attrs);
  auto refuse = [](const std::string& what) { throw dmlc::ParamError(what); };
  if (p.state_size < 1) refuse("state_size must be at least 1");
  if (p.num_layers < 1) refuse("num_layers must be at least 1");
  if (p.projection_size.has_value())
    refuse("projection_size (LSTMP) is not supported; leave it unset");
  if (p.lstm_state_clip_min.has_value() || p.lstm_state_clip_max.has_value())
    refuse("lstm_state_clip_min/max are not supported; leave them unset");
  if (p.use_sequence_length)
    refuse(
        "use_sequence_length=True is not supported; pad the batch to one length and mask the "
        "outputs with SequenceMask");
}

bool IsLstm(const NodeAttrs& a) { return Param<RNNParam>(a).mode == kLstm; }

/*! \brief The oneDNN path's view of a call (weight offsets from RnnGeom, the one source). */
dnnl_util::RnnConfig DnnlConfig(const RnnGeom& g, DType t) {
  dnnl_util::RnnConfig c;
  c.cell = static_cast<dnnl_util::RnnCell>(g.mode);
  c.L = g.L, c.D = g.D, c.T = g.T, c.N = g.N, c.C = g.C, c.H = g.H;
  c.dtype = t;
  c.p = g.p;
  for (int64_t l = 0; l < g.L; ++l)
    for (int64_t d = 0; d < g.D; ++d) {
      c.wx.push_back(g.Wx(l, d)), c.wh.push_back(g.Wh(l, d));
      c.bx.push_back(g.Bx(l, d)), c.bh.push_back(g.Bh(l, d));
    }
  return c;
}

/*!
 * \brief Whether this call runs through oneDNN's RNN primitives. Forward and backward decide
 *  alike from the same inputs, so the backward reads the reserve the forward wrote. Both paths
 *  draw dropout masks alike (one stream per layer boundary), so a seed reproduces either.
 */
bool UseDnnl(const RnnGeom& g, DType t) {
  if (RnnCpuImpl() == "gemm") return false;
  return dnnl_util::RnnSupported(DnnlConfig(g, t));
}

uint32_t NumInputs(const NodeAttrs& a) { return IsLstm(a) ? 4 : 3; }
// out, hy, (cy), reserve
uint32_t NumOutputs(const NodeAttrs& a) { return IsLstm(a) ? 4 : 3; }

bool RNNShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const RNNParam& p = Param<RNNParam>(attrs);
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return false;
  SYMNET_CHECK(x.ndim() == 3) << "data must be 3-D (sequence length, batch, features) in TNC "
                                 "layout, got "
                              << x;
  if (!x.is_known()) return false;
  const RnnGeom g(p, x);
  AssignInShape(in, 1, Shape{g.NumParams()});
  const Shape state{g.L * g.D, g.N, g.H};
  AssignInShape(in, 2, state);
  if (g.mode == kLstm) AssignInShape(in, 3, state);
  AssignOutShape(out, 0, Shape{g.T, g.N, g.D * g.H});
  AssignOutShape(out, 1, state);
  if (g.mode == kLstm) AssignOutShape(out, 2, state);
  // room for either CPU path; the dtype is not known yet, but the reserve is float32 for
  // float32 and bfloat16 data alike (RNNType), so the oneDNN part is the larger of its float32
  // and bfloat16 primitives' bytes (0 where bfloat16 does not run natively) in 4-byte elements
  const size_t dnnl_bytes = std::max(dnnl_util::RnnReserveBytes(DnnlConfig(g, DType::kFloat32)),
                                     dnnl_util::RnnReserveBytes(DnnlConfig(g, DType::kBFloat16)));
  const int64_t dnnl_elems = static_cast<int64_t>((dnnl_bytes + 3) / 4);
  // and for the GPU's cuDNN path (0 without a GPU), in float32 or float16, whichever is more
  const int64_t cudnn_elems = cudnn::RnnReserveElems(g);
  AssignOutShape(out, out->size() - 1, Shape{std::max({g.ReserveSize(), dnnl_elems, cudnn_elems})});
  return true;
}

/*!
 * \brief One dtype for the data, parameters, states and outputs; the reserve is float32 for
 *  bfloat16 data: oneDNN's bfloat16 primitives keep float32 parts (cell states, gates) in their
 *  workspace, so in bfloat16 elements the reserve would have to be sized at twice its bytes for
 *  float32 calls too (shapes are inferred before dtypes). The step-loop paths use its first
 *  ReserveSize() elements of the data's dtype, which fit either way.
 */
bool RNNType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> visible(out->begin(), out->end() - 1);
  if (!ElemwiseType(attrs, in, &visible)) return false;
  std::copy(visible.begin(), visible.end(), out->begin());
  const DType t = (*in)[0];
  out->back() = t == DType::kBFloat16 ? DType::kFloat32 : t;
  return true;
}

size_t ForwardTemp(const NodeAttrs& attrs, const std::vector<Shape>& in,
                   const std::vector<DType>& types) {
  if (!in[0].is_known()) return 0;
  return RnnGeom(Param<RNNParam>(attrs), in[0]).ForwardTemp() * DTypeSize(types[0]);
}

/*! \brief Backward inputs: dy, dhy, (dcy), data, ... */
size_t BackwardTemp(const NodeAttrs& attrs, const std::vector<Shape>& in,
                    const std::vector<DType>& types) {
  const size_t xi = IsLstm(attrs) ? 3 : 2;
  if (!in[xi].is_known()) return 0;
  return RnnGeom(Param<RNNParam>(attrs), in[xi]).BackwardTemp() * DTypeSize(types[xi]);
}

using dnnl_util::GemmConfig;
using dnnl_util::GemmPlan;

/*!
 * \brief One call site's CPU state: the implementation setting it was made under, the oneDNN
 *  primitives (inference and training forward, or backward, built on first use) and the GEMM
 *  plans, one per distinct GEMM.
 */
struct RnnCpuState : public OpState {
  std::string impl = RnnCpuImpl();
  std::unique_ptr<dnnl_util::DnnlRnn> dnnl[2];
  std::vector<std::pair<GemmConfig, std::unique_ptr<GemmPlan>>> plans;
  /*! \brief The primitives for `cfg` (slot 0: inference, 1: training or backward). */
  dnnl_util::DnnlRnn& Dnnl(const dnnl_util::RnnConfig& cfg, bool training, bool backward) {
    auto& p = dnnl[training || backward ? 1 : 0];
    if (!p || !(p->config() == cfg))
      p = std::make_unique<dnnl_util::DnnlRnn>(cfg, training, backward);
    return *p;
  }
  GemmPlan& Get(const GemmConfig& c) {
    for (auto& pr : plans)
      if (pr.first == c) return *pr.second;
    plans.emplace_back(c, std::make_unique<GemmPlan>(c));
    return *plans.back().second;
  }
};

RnnCpuState& CpuState(const OpContext& ctx) {
  return ctx.GetState<RnnCpuState>([] { return new RnnCpuState(); },
                                   [](const RnnCpuState& s) { return s.impl == RnnCpuImpl(); });
}

RnnGemmFn CpuGemm(const OpContext& ctx, DType t) {
  RnnCpuState* st = &CpuState(ctx);
  return [st, t](const RnnGemm& r, const void* a, const void* b, void* c) {
    GemmConfig cfg;
    cfg.m = r.m, cfg.n = r.n, cfg.k = r.k;
    cfg.trans_a = r.trans_a, cfg.trans_b = r.trans_b;
    cfg.accumulate = r.accumulate;
    cfg.dtype = t;
    st->Get(cfg).Run(a, b, c);
  };
}

}  // namespace

namespace {

void RNNForwardCPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RnnGeom g(Param<RNNParam>(attrs), in[0].shape_);
  if (UseDnnl(g, in[0].dtype_)) {
    const bool lstm = g.mode == kLstm;
    auto& rnn = CpuState(ctx).Dnnl(DnnlConfig(g, in[0].dtype_), ctx.is_train, false);
    rnn.Forward(in[0].dptr_, in[1].dptr_, in[2].dptr_, lstm ? in[3].dptr_ : nullptr,
                out.back().dptr_, out[0].dptr_, req[0], out[1].dptr_, req[1],
                lstm ? out[2].dptr_ : nullptr, lstm ? req[2] : kNullOp);
    return;
  }
  RNNForwardCompute<cpu>(attrs, ctx, in, req, out, CpuGemm(ctx, in[0].dtype_));
}

void RNNBackwardCPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool lstm = IsLstm(attrs);
  const size_t xi = lstm ? 3 : 2;  // inputs: dy, dhy, (dcy), data, parameters, state, ...
  const RnnGeom g(Param<RNNParam>(attrs), in[xi].shape_);
  if (UseDnnl(g, in[xi].dtype_)) {
    std::vector<OpReqType> r(req.begin(), req.end());
    r.resize(4, kNullOp);
    auto& rnn = CpuState(ctx).Dnnl(DnnlConfig(g, in[xi].dtype_), true, true);
    rnn.Backward(in[0].dptr_, in[1].dptr_, lstm ? in[2].dptr_ : nullptr, in[xi].dptr_,
                 in[xi + 1].dptr_, in[xi + 2].dptr_, lstm ? in[xi + 3].dptr_ : nullptr,
                 in.back().dptr_, out[0].dptr_, out[1].dptr_, out[2].dptr_,
                 lstm ? out[3].dptr_ : nullptr, r);
    return;
  }
  RNNBackwardCompute<cpu>(attrs, ctx, in, req, out, CpuGemm(ctx, out[0].dtype_));
}

}  // namespace

SYMNET_REGISTER_OP(RNN)
    .describe(
        "A stacked recurrent network over a (time, batch, features) sequence: vanilla RNN "
        "(ReLU or tanh), LSTM or GRU, optionally bidirectional, with all weights and biases "
        "packed in one parameter vector as MXNet (and cuDNN) pack them.")
    .set_num_inputs(NumInputs)
    .set_num_outputs(NumOutputs)
    .set_attr_parser(RNNParser)
    .add_arguments(ParamDocs<RNNParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input sequence (T, N, C).")
    .add_argument("parameters", "NDArray-or-Symbol", "All weights and biases, packed.")
    .add_argument("state", "NDArray-or-Symbol", "Initial hidden state (layers*dirs, N, H).")
    .add_argument("state_cell", "NDArray-or-Symbol", "Initial cell state (LSTM only).")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) {
                                 std::vector<std::string> v{"data", "parameters", "state"};
                                 if (IsLstm(a)) v.push_back("state_cell");
                                 return v;
                               })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs& a) {
                                  std::vector<std::string> v{"output", "state_output"};
                                  if (IsLstm(a)) v.push_back("statecell_output");
                                  v.push_back("reserve");
                                  return v;
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs& a) -> uint32_t {
                                    if (!Param<RNNParam>(a).state_outputs) return 1;
                                    return IsLstm(a) ? 3 : 2;
                                  })
    .set_attr<TDrawsRandom>("TDrawsRandom", true)
    .set_attr<FInferShape>("FInferShape", RNNShape)
    .set_attr<FInferType>("FInferType", RNNType)
    .set_attr<FTempSpace>("FTempSpace", ForwardTemp)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           const bool lstm = IsLstm(n->attrs);
                           std::vector<NodeEntry> in{ograds[0], ograds[1]};
                           if (lstm) in.push_back(ograds[2]);
                           for (const auto& e : n->inputs) in.push_back(e);
                           in.push_back(NodeEntry{n, lstm ? 3u : 2u, 0});
                           return MakeGradNode("_backward_RNN", n, in, ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", RNNForwardCPU);

SYMNET_REGISTER_OP(_backward_RNN)
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t { return IsLstm(a) ? 8 : 6; })
    .set_num_outputs(NumInputs)
    .set_attr_parser(RNNParser)
    .add_arguments(ParamDocs<RNNParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", BackwardTemp)
    .set_attr<FCompute>("FCompute<cpu>", RNNBackwardCPU);

}  // namespace ops
}  // namespace symnet
