/*!
 * \brief The fused RNN op (MXNet's names, attributes and packed parameters): registration,
 *  shape and type rules, and the CPU kernels, whose GEMMs run through dnnl_util::GemmPlan
 *  (oneDNN matmul in float32/bfloat16, staged float32 for float16, a loop for float64).
 */
#include "rnn.h"

#include <memory>
#include <sstream>

#include "../dnnl/dnnl_gemm.h"

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
  AssignOutShape(out, out->size() - 1, Shape{g.ReserveSize()});
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

/*! \brief The GEMM plans of one call site, one per distinct GEMM, built on first use. */
struct RnnCpuState : public OpState {
  std::vector<std::pair<GemmConfig, std::unique_ptr<GemmPlan>>> plans;
  GemmPlan& Get(const GemmConfig& c) {
    for (auto& pr : plans)
      if (pr.first == c) return *pr.second;
    plans.emplace_back(c, std::make_unique<GemmPlan>(c));
    return *plans.back().second;
  }
};

RnnGemmFn CpuGemm(const OpContext& ctx, DType t) {
  RnnCpuState* st = &ctx.GetState<RnnCpuState>([] { return new RnnCpuState(); },
                                               [](const RnnCpuState&) { return true; });
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
  RNNForwardCompute<cpu>(attrs, ctx, in, req, out, CpuGemm(ctx, in[0].dtype_));
}

void RNNBackwardCPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
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
    .set_attr<FInferType>("FInferType", ElemwiseType)
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
