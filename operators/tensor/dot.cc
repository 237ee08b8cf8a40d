/*!
 * \brief dot and batch_dot (MXNet's names and attributes): matrix products through
 *  dnnl_util::GemmPlan — oneDNN matmul for float32/bfloat16, staged float32 for float16, a loop
 *  for float64 — with one GEMM per output in the backward pass.
 */
#include "dot.h"

#include "../dnnl/dnnl_gemm.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(DotParam);

namespace {

void CheckDense(const DotParam& p, const char* op) {
  SYMNET_CHECK(!p.forward_stype.has_value() || p.forward_stype.value() == 0)
      << op
      << ": forward_stype other than 'default' needs sparse arrays, which symnet does not have";
}

}  // namespace

DotGeometry MakeDotGeometry(const DotParam& p, const Shape& lhs, const Shape& rhs, bool batched,
                            Shape* out) {
  DotGeometry g;
  g.trans_a = p.transpose_a;
  g.trans_b = p.transpose_b;
  *out = Shape::Scalar();
  if (!batched) {
    CheckDense(p, "dot");
    SYMNET_CHECK(lhs.ndim() >= 1 && rhs.ndim() >= 1)
        << "dot needs arrays of at least 1 dim, got lhs " << lhs << " and rhs " << rhs;
    // lhs: the contracted axis is its last (first with transpose_a); rhs: its first (last)
    const int64_t ka = p.transpose_a ? lhs[0] : lhs[lhs.ndim() - 1];
    const int64_t kb = p.transpose_b ? rhs[rhs.ndim() - 1] : rhs[0];
    SYMNET_CHECK(ka == kb) << "dot: lhs " << lhs << " and rhs " << rhs
                           << " do not share the contracted dim: lhs's "
                           << (p.transpose_a ? "first" : "last") << " dim is " << ka << ", rhs's "
                           << (p.transpose_b ? "last" : "first") << " dim is " << kb;
    g.k = ka;
    g.m = p.transpose_a ? lhs.ProdRange(1, lhs.ndim()) : lhs.ProdRange(0, lhs.ndim() - 1);
    g.n = p.transpose_b ? rhs.ProdRange(0, rhs.ndim() - 1) : rhs.ProdRange(1, rhs.ndim());
    for (int i = p.transpose_a ? 1 : 0; i < lhs.ndim() - (p.transpose_a ? 0 : 1); ++i)
      out->push_back(lhs[i]);
    for (int i = p.transpose_b ? 0 : 1; i < rhs.ndim() - (p.transpose_b ? 1 : 0); ++i)
      out->push_back(rhs[i]);
    if (out->ndim() == 0) out->push_back(1);  // MXNet 1.x: the dot of two vectors has shape (1,)
    return g;
  }
  CheckDense(p, "batch_dot");
  SYMNET_CHECK(lhs.ndim() >= 3 && lhs.ndim() == rhs.ndim())
      << "batch_dot needs lhs and rhs of the same number of dims, at least 3 (batch..., rows, "
         "cols), got lhs "
      << lhs << " and rhs " << rhs;
  const int d = lhs.ndim();
  for (int i = 0; i < d - 2; ++i) {
    SYMNET_CHECK(lhs[i] == rhs[i])
        << "batch_dot: lhs " << lhs << " and rhs " << rhs << " differ in batch dim " << i;
    out->push_back(lhs[i]);
  }
  g.batch = lhs.ProdRange(0, d - 2);
  g.m = p.transpose_a ? lhs[d - 1] : lhs[d - 2];
  const int64_t ka = p.transpose_a ? lhs[d - 2] : lhs[d - 1];
  const int64_t kb = p.transpose_b ? rhs[d - 1] : rhs[d - 2];
  g.n = p.transpose_b ? rhs[d - 2] : rhs[d - 1];
  SYMNET_CHECK(ka == kb) << "batch_dot: the matrices of lhs " << lhs
                         << (p.transpose_a ? " (transposed)" : "") << " and rhs " << rhs
                         << (p.transpose_b ? " (transposed)" : "") << " do not chain: lhs has "
                         << ka << " columns, rhs " << kb << " rows";
  g.k = ka;
  out->push_back(g.m);
  out->push_back(g.n);
  return g;
}

namespace {

using dnnl_util::GemmConfig;
using dnnl_util::GemmPlan;

/*!
 * \brief The output of partially known lhs and rhs, as MXNet's infer_shape_partial: it is
 *  decided once both ndims and both contracted dims are known (they must agree); the other dims
 *  pass through, unknown or not. Batch dims merge. False when it is not decided yet.
 */
bool DotPartialShape(const DotParam& p, const Shape& lhs, const Shape& rhs, bool batched,
                     Shape* out) {
  if (!lhs.ndim_known() || !rhs.ndim_known()) return false;
  const int dl = lhs.ndim(), dr = rhs.ndim();
  if (dl < (batched ? 3 : 1) || (batched && dl != dr) || dr < 1) return false;  // full rule says
  const int ka_at = batched ? (p.transpose_a ? dl - 2 : dl - 1) : (p.transpose_a ? 0 : dl - 1);
  const int kb_at = batched ? (p.transpose_b ? dr - 1 : dr - 2) : (p.transpose_b ? dr - 1 : 0);
  if (lhs[ka_at] < 0 || rhs[kb_at] < 0) return false;
  SYMNET_CHECK(lhs[ka_at] == rhs[kb_at])
      << (batched ? "batch_dot" : "dot") << ": lhs " << lhs << " and rhs " << rhs
      << " do not share the contracted dim";
  *out = Shape::Scalar();
  if (batched) {
    for (int i = 0; i < dl - 2; ++i) {
      SYMNET_CHECK(lhs[i] < 0 || rhs[i] < 0 || lhs[i] == rhs[i])
          << "batch_dot: lhs " << lhs << " and rhs " << rhs << " differ in batch dim " << i;
      out->push_back(lhs[i] >= 0 ? lhs[i] : rhs[i]);
    }
    out->push_back(p.transpose_a ? lhs[dl - 1] : lhs[dl - 2]);
    out->push_back(p.transpose_b ? rhs[dr - 2] : rhs[dr - 1]);
    return true;
  }
  for (int i = 0; i < dl; ++i)
    if (i != ka_at) out->push_back(lhs[i]);
  for (int i = 0; i < dr; ++i)
    if (i != kb_at) out->push_back(rhs[i]);
  if (out->ndim() == 0) out->push_back(1);  // MXNet 1.x: the dot of two vectors has shape (1,)
  return true;
}

template <bool kBatched>
bool DotShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape o;
  if (!(*in)[0].is_known() || !(*in)[1].is_known()) {
    if (DotPartialShape(Param<DotParam>(attrs), (*in)[0], (*in)[1], kBatched, &o))
      AssignOutShape(out, 0, o);
    return false;
  }
  MakeDotGeometry(Param<DotParam>(attrs), (*in)[0], (*in)[1], kBatched, &o);
  AssignOutShape(out, 0, o);
  return true;
}

GemmConfig ToConfig(const DotGemm& d, DType t, OpReqType req) {
  GemmConfig c;
  c.batch = d.batch, c.m = d.m, c.n = d.n, c.k = d.k;
  c.trans_a = d.trans_a, c.trans_b = d.trans_b;
  c.dtype = t;
  c.accumulate = req == kAddTo;
  return c;
}

/*! \brief The GEMM plans of one call site, rebuilt when shapes, dtype or requests change. */
struct DotState : public OpState {
  std::vector<GemmConfig> configs;
  std::vector<std::unique_ptr<GemmPlan>> plans;
};

DotState& Plans(const OpContext& ctx, const std::vector<GemmConfig>& configs) {
  return ctx.GetState<DotState>(
      [&] {
        auto* s = new DotState();
        s->configs = configs;
        for (const auto& c : configs) s->plans.push_back(std::make_unique<GemmPlan>(c));
        return s;
      },
      [&](const DotState& s) { return s.configs == configs; });
}

template <bool kBatched>
void DotForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  Shape o;
  const DotGeometry g =
      MakeDotGeometry(Param<DotParam>(attrs), in[0].shape_, in[1].shape_, kBatched, &o);
  Plans(ctx, {ToConfig(DotGemms(g)[0], in[0].dtype_, req[0])})
      .plans[0]
      ->Run(in[0].dptr_, in[1].dptr_, out[0].dptr_);
}

/*! \brief Inputs (dC, A, B); outputs (dA, dB). */
template <bool kBatched>
void DotBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  Shape o;
  const DotGeometry g =
      MakeDotGeometry(Param<DotParam>(attrs), in[1].shape_, in[2].shape_, kBatched, &o);
  const auto gemms = DotGemms(g);
  const DType t = in[1].dtype_;
  DotState& st = Plans(ctx, {ToConfig(gemms[1], t, req[0]), ToConfig(gemms[2], t, req[1])});
  for (int i = 0; i < 2; ++i) {
    if (req[i] == kNullOp) continue;
    const DotGemm& d = gemms[i + 1];
    st.plans[i]->Run(in[d.a].dptr_, in[d.b].dptr_, out[i].dptr_);
  }
}

}  // namespace

// dot and batch_dot differ only in the shape rule, so one registration serves both
#define SYMNET_DOT_OP(name, batched, text)                                                \
  SYMNET_REGISTER_OP(name)                                                                \
      .describe(text)                                                                     \
      .set_num_inputs(2)                                                                  \
      .set_attr_parser(ParamParser<DotParam>)                                             \
      .add_arguments(ParamDocs<DotParam>())                                               \
      .add_argument("lhs", "NDArray-or-Symbol", "The first input.")                       \
      .add_argument("rhs", "NDArray-or-Symbol", "The second input.")                      \
      .set_attr<FListInputNames>("FListInputNames",                                       \
                                 [](const NodeAttrs&) {                                   \
                                   return std::vector<std::string>{"lhs", "rhs"};         \
                                 })                                                       \
      .set_attr<FInferShape>("FInferShape", DotShape<batched>)                            \
      .set_attr<FInferType>("FInferType", ElemwiseType)                                   \
      .set_attr<FGradient>("FGradient",                                                   \
                           [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {   \
                             return MakeGradNode("_backward_" #name, n,                   \
                                                 {ograds[0], n->inputs[0], n->inputs[1]}, \
                                                 ParamsOf(n));                            \
                           })                                                             \
      .set_attr<FCompute>("FCompute<cpu>", DotForward<batched>);                          \
  SYMNET_REGISTER_OP(_backward_##name)                                                    \
      .set_num_inputs(3)                                                                  \
      .set_num_outputs(2)                                                                 \
      .set_attr_parser(ParamParser<DotParam>)                                             \
      .add_arguments(ParamDocs<DotParam>())                                               \
      .set_attr<TIsBackward>("TIsBackward", true)                                         \
      .set_attr<FCompute>("FCompute<cpu>", DotBackward<batched>)

SYMNET_DOT_OP(dot, false,
              "Matrix product of lhs and rhs, contracting lhs's last axis (first with "
              "transpose_a) with rhs's first axis (last with transpose_b); the output's dims are "
              "lhs's remaining dims then rhs's.");
SYMNET_DOT_OP(batch_dot, true,
              "Batched matrix product: for each index of the leading (batch) dims, lhs's matrix "
              "(rows, cols) times rhs's, either transposed by transpose_a / transpose_b.");

}  // namespace ops
}  // namespace symnet
