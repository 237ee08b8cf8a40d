/*!
 * \brief LeakyReLU family: leaky (slope*x below 0), prelu (learned slope per channel), elu,
 *  selu, gelu (erf form). Gradients use the forward input.
 */
#include <cmath>

#include "../kernel_launch.h"
#include "../operator_common.h"

namespace symnet {
namespace ops {

enum LeakyType { kLeaky, kPReLU, kELU, kSELU, kGELU, kRReLU };

struct LeakyReLUParam : public dmlc::Parameter<LeakyReLUParam> {
  int act_type;
  float slope, lower_bound, upper_bound;
  DMLC_DECLARE_PARAMETER(LeakyReLUParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("leaky", kLeaky)
        .add_enum("prelu", kPReLU)
        .add_enum("elu", kELU)
        .add_enum("selu", kSELU)
        .add_enum("gelu", kGELU)
        .add_enum("rrelu", kRReLU)
        .set_default(kLeaky)
        .describe("Activation function.");
    DMLC_DECLARE_FIELD(slope).set_default(0.25f).describe("Slope for leaky, alpha for elu.");
    DMLC_DECLARE_FIELD(lower_bound).set_default(0.125f).describe("rrelu lower bound (not supported).");
    DMLC_DECLARE_FIELD(upper_bound).set_default(0.334f).describe("rrelu upper bound (not supported).");
  }
};
DMLC_REGISTER_PARAMETER(LeakyReLUParam);

namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

/*! \brief f(x) and f'(x) for a slope a (leaky/prelu slope, elu alpha). */
template <typename A>
inline A Act(int type, A x, A a) {
  switch (type) {
    case kLeaky:
    case kPReLU: return x > 0 ? x : a * x;
    case kELU: return x > 0 ? x : a * std::expm1(x);
    case kSELU: return static_cast<A>(kSeluLambda) * (x > 0 ? x : static_cast<A>(kSeluAlpha) * std::expm1(x));
    default: return static_cast<A>(0.5) * x * (A(1) + std::erf(x * static_cast<A>(kInvSqrt2)));
  }
}
template <typename A>
inline A ActGrad(int type, A x, A a) {
  switch (type) {
    case kLeaky:
    case kPReLU: return x > 0 ? A(1) : a;
    case kELU: return x > 0 ? A(1) : a * std::exp(x);
    case kSELU: return static_cast<A>(kSeluLambda) * (x > 0 ? A(1) : static_cast<A>(kSeluAlpha) * std::exp(x));
    default:
      return static_cast<A>(0.5) * (A(1) + std::erf(x * static_cast<A>(kInvSqrt2))) +
             x * static_cast<A>(kInvSqrt2Pi) * std::exp(static_cast<A>(-0.5) * x * x);
  }
}

/*! \brief Channel of flat index i (prelu): axis 1 of the logical shape, in any layout. */
struct ChannelOf {
  int64_t c, inner;  // inner: elements per channel run (1 for channels-last)
  bool shared;       // gamma has one element
  int64_t spatial = 0;  // > 0 for nChw16c: positions per channel block
  int64_t operator()(int64_t i) const {
    if (shared) return 0;
    if (spatial > 0) return ((i / (16 * spatial)) % (c / 16)) * 16 + i % 16;
    return (i / inner) % c;
  }
};

ChannelOf MakeChannelOf(const TBlob& x, const Shape& gamma) {
  const Shape& s = x.shape_;
  const int64_t c = s.ndim() > 1 ? s[1] : 1;
  const int64_t sp = s.ndim() > 2 ? s.ProdRange(2, s.ndim()) : 1;
  const int64_t inner = x.channels_last() || s.ndim() < 2 ? 1 : sp;
  return ChannelOf{c, inner, gamma.Size() == 1, x.blocked16() ? sp : 0};
}

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
void LeakyForward(const LeakyReLUParam& p, const TBlob& xb, const TBlob* gamma, const TBlob& yb, OpReqType req) {
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
    LeakyBackward<T>(p, in[0], in[1], prelu ? &in[2] : nullptr, out[0], prelu ? &out[1] : nullptr, req);
  });
}

uint32_t NumLeakyInputs(const NodeAttrs& a) {
  return Param<LeakyReLUParam>(a).act_type == kPReLU ? 2 : 1;
}

}  // namespace

SYMNET_REGISTER_OP(LeakyReLU)
    .describe("Leaky rectifiers and smooth relatives: leaky (x or slope*x), prelu (learned "
              "slope gamma per channel), elu (slope*(exp(x)-1) below 0), selu, gelu.")
    .set_num_inputs(NumLeakyInputs)
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .add_arguments(ParamDocs<LeakyReLUParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("gamma", "NDArray-or-Symbol", "Slopes for prelu (per channel, or one).")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) {
                                 return NumLeakyInputs(a) == 2 ? std::vector<std::string>{"data", "gamma"}
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
