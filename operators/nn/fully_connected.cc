/*!
 * \brief FullyConnected: Y = X W^T + b. X is (n, k) after flattening (or (..., k) with
 *  flatten=False), W is (num_hidden, k). GEMMs via dnnl_util::GemmPlan, cached per call site.
 */
#include "fully_connected.h"

#include "../dnnl/dnnl_gemm.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(FullyConnectedParam);

namespace {

using dnnl_util::GemmConfig;
using dnnl_util::GemmPlan;

bool FCShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const Shape& x = (*in)[0];
  if (!p.no_bias) AssignInShape(in, 2, Shape{p.num_hidden});
  if (!x.ndim_known()) return false;
  SYMNET_CHECK(x.ndim() >= 1) << "FullyConnected data must have at least 1 dim";
  // the weight needs only the feature dims, so it is inferred even while the batch is unknown
  const int first = p.flatten ? 1 : x.ndim() - 1;
  bool k_known = true;
  int64_t k = 1;
  for (int i = first; i < x.ndim(); ++i) {
    k_known = k_known && x[i] >= 0;
    k *= x[i];
  }
  if (k_known) AssignInShape(in, 1, Shape{p.num_hidden, k});
  Shape o = p.flatten ? Shape{x[0], p.num_hidden} : x;
  o[o.ndim() - 1] = p.num_hidden;
  AssignOutShape(out, 0, o);
  // as MXNet's FCShape, an unknown batch (the 0 of a legacy RNN begin state) takes the output's
  const Shape& os = (*out)[0];
  if (x[0] < 0 && os.ndim_known() && os[0] >= 0) {
    Shape d = x;
    d[0] = os[0];
    AssignInShape(in, 0, d);
  }
  return (*in)[0].is_known();
}

std::vector<std::string> FCInputs(const NodeAttrs& attrs) {
  if (Param<FullyConnectedParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

/*! \brief The cached GEMMs of one call site; rebuilt if shapes, dtype or requests change. */
struct FCState : public OpState {
  std::vector<std::unique_ptr<GemmPlan>> plans;
  std::vector<GemmConfig> configs;
  bool Matches(const std::vector<GemmConfig>& c) const { return configs == c; }
  static FCState* Make(const std::vector<GemmConfig>& c) {
    auto* s = new FCState();
    s->configs = c;
    for (const auto& cfg : c) s->plans.push_back(std::make_unique<GemmPlan>(cfg));
    return s;
  }
};

FCState& GetPlans(const OpContext& ctx, const std::vector<GemmConfig>& configs) {
  return ctx.GetState<FCState>([&] { return FCState::Make(configs); },
                               [&](const FCState& s) { return s.Matches(configs); });
}

void FCForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const auto mk = InputMatrix(p, in[0].shape_);
  GemmConfig c;
  c.m = mk.first;
  c.k = mk.second;
  c.n = p.num_hidden;
  c.trans_b = true;  // W is stored (n, k)
  c.dtype = in[0].dtype_;
  c.bias = !p.no_bias;
  c.accumulate = req[0] == kAddTo;
  FCState& st = GetPlans(ctx, {c});
  st.plans[0]->Run(in[0].dptr_, in[1].dptr_, out[0].dptr_, p.no_bias ? nullptr : in[2].dptr_);
}

/*! \brief db[j] (+)= sum_i dy[i, j], accumulated in double per column. */
template <typename T>
void BiasGrad(const T* dy, T* db, int64_t m, int64_t n, OpReqType req) {
  using A = AccType<T>;
#pragma omp parallel for if (m * n >= kOmpMinWork)
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += static_cast<A>(dy[i * n + j]);
    if (req == kAddTo) {
      AssignReq<kAddTo>(&db[j], static_cast<A>(s));
    } else {
      AssignReq<kWriteTo>(&db[j], static_cast<A>(s));
    }
  }
}

/*! \brief Inputs (dy, x, w); outputs (dx, dw[, db]). dx = dy W, dW = dy^T X, db = colsum(dy). */
void FCBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const auto mk = InputMatrix(p, in[1].shape_);
  const int64_t m = mk.first, k = mk.second, n = p.num_hidden;
  const DType t = in[1].dtype_;
  std::vector<GemmConfig> cfgs(2);
  cfgs[0].m = m, cfgs[0].n = k, cfgs[0].k = n, cfgs[0].dtype = t;  // dx[m,k] = dy[m,n] W[n,k]
  cfgs[0].accumulate = req[0] == kAddTo;
  cfgs[1].m = n, cfgs[1].n = k, cfgs[1].k = m, cfgs[1].dtype = t;  // dW[n,k] = dy^T X
  cfgs[1].trans_a = true;
  cfgs[1].accumulate = req[1] == kAddTo;
  FCState& st = GetPlans(ctx, cfgs);
  if (req[0] != kNullOp) st.plans[0]->Run(in[0].dptr_, in[2].dptr_, out[0].dptr_);
  if (req[1] != kNullOp) st.plans[1]->Run(in[0].dptr_, in[1].dptr_, out[1].dptr_);
  if (!p.no_bias && req[2] != kNullOp) {
    SYMNET_FLOAT_TYPE_SWITCH(t, T, { BiasGrad(in[0].dptr<T>(), out[2].dptr<T>(), m, n, req[2]); });
  }
}

}  // namespace

SYMNET_REGISTER_OP(FullyConnected)
    .describe("Applies a linear transformation: Y = X W^T + b.")
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t {
      return Param<FullyConnectedParam>(a).no_bias ? 2 : 3;
    })
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .add_arguments(ParamDocs<FullyConnectedParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix (num_hidden, input_dim).")
    .add_argument("bias", "NDArray-or-Symbol", "Bias (num_hidden,).")
    .set_attr<FListInputNames>("FListInputNames", FCInputs)
    .set_attr<FInferShape>("FInferShape", FCShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return MakeGradNode("_backward_FullyConnected", n,
                                               {ograds[0], n->inputs[0], n->inputs[1]},
                                               ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", FCForward);

SYMNET_REGISTER_OP(_backward_FullyConnected)
    .set_num_inputs(3)
    .set_num_outputs([](const NodeAttrs& a) -> uint32_t {
      return Param<FullyConnectedParam>(a).no_bias ? 2 : 3;
    })
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .add_arguments(ParamDocs<FullyConnectedParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", FCBackward);

}  // namespace ops
}  // namespace symnet
