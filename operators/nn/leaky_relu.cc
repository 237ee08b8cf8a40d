/*!
 * \brief LeakyReLU family: leaky (slope*x below 0), prelu (learned slope per channel), elu,
 *  selu, gelu (erf form). Gradients use the forward input.
 */
#include "leaky_relu.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(LeakyReLUParam);

namespace {

bool LeakyShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  SYMNET_CHECK(p.act_type != kRReLU) << "LeakyReLU act_type 'rrelu' is not supported";
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  if (p.act_type == kPReLU && !(*in)[1].ndim_known())
    AssignInShape(in, 1, Shape{x.ndim() > 1 ? x[1] : 1});
  AssignOutShape(out, 0, x);
  return true;
}

template <typename T>
void LeakyForward(const LeakyReLUParam& p, const TBlob& xb, const TBlob* gamma, const TBlob& yb,
                  OpReqType req) {
  using A = AccType<T>;
  const T* x = xb.dptr<T>();
  T* y = yb.dptr<T>();
  const int64_t n = xb.Size();
  const ChannelOf ch = gamma ? MakeChannelOf(xb, gamma->shape_) : ChannelOf{1, 1, true};
  const T* g = gamma ? gamma->dptr<T>() : nullptr;
  const A slope = static_cast<A>(p.slope);
#pragma omp parallel for if (n >= kOmpMinWork)
  for (int64_t i = 0; i < n; ++i) {
    const A a = g ? static_cast<A>(g[ch(i)]) : slope;
    const A v = Act<A>(p.act_type, static_cast<A>(x[i]), a);
    if (req == kAddTo) {
      AssignReq<kAddTo>(&y[i], v);
    } else {
      AssignReq<kWriteTo>(&y[i], v);
    }
  }
}

template <typename T>
void LeakyBackward(const LeakyReLUParam& p, const TBlob& dyb, const TBlob& xb, const TBlob* gamma,
                   const TBlob& dxb, const TBlob* dgamma, const std::vector<OpReqType>& req) {
  using A = AccType<T>;
  const T* x = xb.dptr<T>();
  const T* dy = dyb.dptr<T>();
  T* dx = dxb.dptr<T>();
  const int64_t n = xb.Size();
  const ChannelOf ch = gamma ? MakeChannelOf(xb, gamma->shape_) : ChannelOf{1, 1, true};
  const T* g = gamma ? gamma->dptr<T>() : nullptr;
  const A slope = static_cast<A>(p.slope);
  if (req[0] != kNullOp) {
#pragma omp parallel for if (n >= kOmpMinWork)
    for (int64_t i = 0; i < n; ++i) {
      const A a = g ? static_cast<A>(g[ch(i)]) : slope;
      const A v = static_cast<A>(dy[i]) * ActGrad<A>(p.act_type, static_cast<A>(x[i]), a);
      if (req[0] == kAddTo) {
        AssignReq<kAddTo>(&dx[i], v);
      } else {
        AssignReq<kWriteTo>(&dx[i], v);
      }
    }
  }
  if (dgamma && req[1] != kNullOp) {  // d/dgamma = sum of dy * x where x <= 0
    std::vector<double> acc(static_cast<size_t>(gamma->Size()), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const A xv = static_cast<A>(x[i]);
      if (xv <= 0) acc[ch(i)] += static_cast<double>(static_cast<A>(dy[i])) * xv;
    }
    T* dg = dgamma->dptr<T>();
    for (size_t c = 0; c < acc.size(); ++c) {
      if (req[1] == kAddTo) {
        AssignReq<kAddTo>(&dg[c], static_cast<A>(acc[c]));
      } else {
        AssignReq<kWriteTo>(&dg[c], static_cast<A>(acc[c]));
      }
    }
  }
}

void LeakyCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    LeakyForward<T>(p, in[0], p.act_type == kPReLU ? &in[1] : nullptr, out[0], req[0]);
  });
}

/*! \brief Inputs (dy, x[, gamma]); outputs (dx[, dgamma]). */
void LeakyGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  const bool prelu = p.act_type == kPReLU;
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    LeakyBackward<T>(p, in[0], in[1], prelu ? &in[2] : nullptr, out[0], prelu ? &out[1] : nullptr,
                     req);
  });
}

uint32_t NumLeakyInputs(const NodeAttrs& a) {
  return Param<LeakyReLUParam>(a).act_type == kPReLU ? 2 : 1;
}

}  // namespace

SYMNET_REGISTER_OP(LeakyReLU)
    .describe(
        "Leaky rectifiers and smooth relatives: leaky (x or slope*x), prelu (learned "
        "slope gamma per channel), elu (slope*(exp(x)-1) below 0), selu, gelu.")
    .set_num_inputs(NumLeakyInputs)
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .add_arguments(ParamDocs<LeakyReLUParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("gamma", "NDArray-or-Symbol", "Slopes for prelu (per channel, or one).")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) {
                                 return NumLeakyInputs(a) == 2
                                            ? std::vector<std::string>{"data", "gamma"}
                                            : std::vector<std::string>{"data"};
                               })
    .set_attr<FInferShape>("FInferShape", LeakyShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", UniformLayout({0}, {0}))
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           std::vector<NodeEntry> in{ograds[0]};
                           in.insert(in.end(), n->inputs.begin(), n->inputs.end());
                           return MakeGradNode("_backward_LeakyReLU", n, in, ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", LeakyCompute);

SYMNET_REGISTER_OP(_backward_LeakyReLU)
    .set_num_inputs([](const NodeAttrs& a) { return NumLeakyInputs(a) + 1; })
    .set_num_outputs(NumLeakyInputs)
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .add_arguments(ParamDocs<LeakyReLUParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", UniformLayout({0, 1}, {0}))
    .set_attr<FCompute>("FCompute<cpu>", LeakyGradCompute);

}  // namespace ops
}  // namespace symnet
