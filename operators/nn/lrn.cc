/*!
 * \brief LRN (local response normalization across channels, AlexNet/GoogLeNet) with MXNet 1.9.1's
 *  semantics on 4-D NCHW data. MXNet's node also has a hidden second output (tmp_norm) that no
 *  consumer reads; symnet's has one output, and the JSON loaders recompute node_row_ptr.
 *  CPU: oneDNN for float32 (and native bfloat16) with an odd window where oneDNN has an optimized
 *  kernel; float64, even windows and the cases oneDNN would run with its reference kernel run the
 *  functor loop of lrn.h (OpenMP); other 16-bit cases run staged in float32.
 */
#include "lrn.h"

#include "../dnnl/dnnl_lrn.h"
#include "../scratch_output.h"
#include "../stage_f32.h"
#include "symnet/storage.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(LRNParam);

namespace {

void LRNParser(NodeAttrs* attrs) {
  ParamParser<LRNParam>(attrs);
  const LRNParam& p = Param<LRNParam>(*attrs);
  if (p.nsize < 1) throw dmlc::ParamError("nsize must be at least 1, got 0");
}

bool LRNShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape d = (*in)[0];
  if (!d.is_known() && (*out)[0].is_known()) d = (*out)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() == 4) << "LRN expects 4-D (N, C, H, W) data, got shape " << d;
  AssignInShape(in, 0, d);
  AssignOutShape(out, 0, d);
  return true;
}

bool LRNType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  const DType t = (*in)[0];
  SYMNET_CHECK(IsFloatType(t)) << "LRN expects floating-point data, got " << DTypeName(t);
  return true;
}

dnnl_util::LRNConfig MakeConfig(const LRNParam& p, const TBlob& x) {
  dnnl_util::LRNConfig c;
  c.shape = x.shape_;
  c.dtype = x.dtype_;
  c.local_size = p.nsize;
  c.alpha = p.alpha;
  c.beta = p.beta;
  c.k = p.knorm;
  return c;
}

bool UseDnnl(const LRNParam& p, const TBlob& x) {
  return dnnl_util::LRNSupported(x.shape_, x.dtype_, x.layout_, p.nsize);
}

// `staged` is the slot of the float32 fallback when oneDNN has only a reference kernel for this
// 16-bit case: the staging state must not take this state's place in the call site's one slot.
struct LRNForwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlLRNForward> lrn;
  StoragePtr scratch, workspace;
  std::unique_ptr<OpState> staged;
};
struct LRNBackwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlLRNBackward> lrn;
  std::unique_ptr<OpState> staged;
};

bool Is16Bit(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

/*!
 * \brief The oneDNN wrapper for this call site (created on the first call and when the shape
 *  changes); its `usable()` is false when oneDNN has no optimized kernel for the case.
 */
template <typename State, typename Make>
State& DnnlFor(const OpContext& ctx, const dnnl_util::LRNConfig& cfg, Make make) {
  return ctx.GetState<State>(
      [&] {
        auto* s = new State();
        s->lrn = make();
        return s;
      },
      [&](const State& s) { return s.lrn->config() == cfg; });
}

/*! \brief Runs `kernel` staged through float32, keeping the staging state inside `*slot`. */
void StagedIn(std::unique_ptr<OpState>* slot, const FCompute& kernel, const NodeAttrs& attrs,
              const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
              const std::vector<TBlob>& out) {
  OpContext sub = ctx;
  sub.state = slot;
  StagedF32Compute(kernel, attrs, sub, in, req, out);
}

void LRNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LRNParam& p = Param<LRNParam>(attrs);
  const TBlob& x = in[0];
  if (req[0] == kNullOp || x.Size() == 0) return;
  SYMNET_CHECK(!x.blocked() && !x.channels_last()) << "LRN takes NCHW data";
  if (UseDnnl(p, x)) {
    const auto cfg = MakeConfig(p, x);
    auto& st = DnnlFor<LRNForwardState>(
        ctx, cfg, [&] { return std::make_unique<dnnl_util::DnnlLRNForward>(cfg); });
    if (st.lrn->usable()) {
      if (!st.workspace && st.lrn->workspace_bytes() > 0)
        st.workspace = AllocStorage(st.lrn->workspace_bytes(), Device::CPU());
      void* y = ScratchFor(&st.scratch, out[0], req[0]);
      st.lrn->Run(x.dptr_, y, st.workspace ? st.workspace->ptr() : nullptr);
      AddScratch(y, out[0], req[0]);
      return;
    }
    if (Is16Bit(x.dtype_)) return StagedIn(&st.staged, LRNForward, attrs, ctx, in, req, out);
  }
  if (Is16Bit(x.dtype_)) {
    StagedF32Compute(LRNForward, attrs, ctx, in, req, out);
  } else {
    LRNForwardLoop<cpu>(p, x, req[0], out[0]);
  }
}

/*! \brief Inputs (dy, x); output dx. */
void LRNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LRNParam& p = Param<LRNParam>(attrs);
  const TBlob &dy = in[0], &x = in[1];
  if (req[0] == kNullOp || x.Size() == 0) return;
  SYMNET_CHECK(!x.blocked() && !x.channels_last()) << "LRN takes NCHW data";
  if (UseDnnl(p, x)) {
    const auto cfg = MakeConfig(p, x);
    auto& st = DnnlFor<LRNBackwardState>(
        ctx, cfg, [&] { return std::make_unique<dnnl_util::DnnlLRNBackward>(cfg); });
    if (st.lrn->usable()) return st.lrn->Run(dy.dptr_, x.dptr_, out[0].dptr_, req[0]);
    if (Is16Bit(x.dtype_)) return StagedIn(&st.staged, LRNBackward, attrs, ctx, in, req, out);
  }
  if (Is16Bit(x.dtype_)) {
    StagedF32Compute(LRNBackward, attrs, ctx, in, req, out);
  } else {
    LRNBackwardLoop<cpu>(p, dy, x, req[0], out[0]);
  }
}

}  // namespace

SYMNET_REGISTER_OP(LRN)
    .describe(
        "Local response normalization across channels of NCHW data: y = x / (knorm + alpha / "
        "nsize * sum of x^2 over the nsize channels around x's)^beta.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(LRNParser)
    .add_argument("data", "NDArray-or-Symbol", "Input data, (N, C, H, W).")
    .add_arguments(ParamDocs<LRNParam>())
    .set_attr<FInferShape>("FInferShape", LRNShape)
    .set_attr<FInferType>("FInferType", LRNType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseIn("_backward_LRN"))
    .set_attr<FCompute>("FCompute<cpu>", LRNForward);

SYMNET_REGISTER_OP(_backward_LRN)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(LRNParser)
    .add_arguments(ParamDocs<LRNParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", LRNBackward);

}  // namespace ops
}  // namespace symnet
