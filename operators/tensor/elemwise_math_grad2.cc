/*!
 * \brief Second-order gradients of the element-wise math ops (autograd.grad(create_graph=True)):
 *  gradients for their backward ops `_backward_NAME`, which compute r = g * d(v) from the
 *  output gradient g and v, the forward input x or output y (elemwise_math.cc).
 *
 *  With head gradient h: dr/dg is linear, h * d(v), i.e. _backward_NAME(h, v) again; dr/dv is
 *  h * g * d'(v), written here per op with forward ops (so it has a gradient itself). The ops
 *  elemwise_mul's backward too. The ops
 *  listed are those MXNet 1.9.1 users differentiate twice (gradient penalties, Hessian-vector
 *  products); another op's backward gets no gradient and autograd says which op lacks it.
 */
#include <cstdio>
#include <functional>
#include <string>

#include "../operator_common.h"

namespace symnet {
namespace ops {

namespace {

/*! \brief dr/dv given hg = h * g and v (a null entry: zero). */
using SecondDerivative =
    std::function<NodeEntry(const NodePtr& n, const NodeEntry& hg, const NodeEntry& v)>;

NodeEntry Apply(const char* op, const NodePtr& n, std::vector<NodeEntry> in,
                const std::map<std::string, std::string>& dict = {}) {
  return MakeGradNode(op, n, std::move(in), dict, "grad2")[0];
}
NodeEntry Mul(const NodePtr& n, const NodeEntry& a, const NodeEntry& b) {
  return Apply("elemwise_mul", n, {a, b});
}
/*! \brief A scalar attribute with every digit (std::to_string keeps six decimals). */
std::string Exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}
NodeEntry Scale(const NodePtr& n, const NodeEntry& a, double s) {
  return Apply("_mul_scalar", n, {a}, {{"scalar", Exact(s)}});
}
NodeEntry Shift(const NodePtr& n, const NodeEntry& a, double s) {
  return Apply("_plus_scalar", n, {a}, {{"scalar", Exact(s)}});
}
/*! \brief c / v^2 */
NodeEntry OverSquare(const NodePtr& n, const NodeEntry& v, double c) {
  return Scale(n, Apply("square", n, {Apply("reciprocal", n, {v})}), c);
}

void SetSecondOrder(const char* backward_op, SecondDerivative dv) {
  Op::Register(backward_op)
      .set_attr<FGradient>(
          "FGradient", [backward_op, dv](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
            const NodeEntry& h = ograds[0];
            const NodeEntry& g = n->inputs[0];
            const NodeEntry& v = n->inputs[1];
            NodeEntry dg = MakeGradNode(backward_op, n, {h, v}, ParamsOf(n), "backward_grad")[0];
            if (!dv) return std::vector<NodeEntry>{dg, NoGradient()};
            return std::vector<NodeEntry>{dg, dv(n, Mul(n, h, g), v)};
          });
}

const double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;

/*! \brief Registered at load time, after the ops themselves (Register reopens an op). */
const bool registered = [] {
  // y-based (ElemwiseGradUseOut): v is the forward output y
  SetSecondOrder("_backward_exp", [](const NodePtr&, const NodeEntry& hg, const NodeEntry&) {
    return hg;  // d = y
  });
  SetSecondOrder("_backward_expm1", [](const NodePtr&, const NodeEntry& hg, const NodeEntry&) {
    return hg;  // d = y + 1
  });
  SetSecondOrder("_backward_sigmoid",
                 [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& y) {
                   return Mul(n, hg, Shift(n, Scale(n, y, -2), 1));  // d = y (1 - y)
                 });
  SetSecondOrder("_backward_tanh", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& y) {
    return Mul(n, hg, Scale(n, y, -2));  // d = 1 - y^2
  });
  SetSecondOrder("_backward_sqrt", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& y) {
    return Mul(n, hg, OverSquare(n, y, -0.5));  // d = 1 / (2y)
  });
  SetSecondOrder("_backward_rsqrt", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& y) {
    return Mul(n, hg, Scale(n, Apply("square", n, {y}), -1.5));  // d = -y^3 / 2
  });
  SetSecondOrder("_backward_reciprocal",
                 [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& y) {
                   return Mul(n, hg, Scale(n, y, -2));  // d = -y^2
                 });
  SetSecondOrder("_backward_relu", nullptr);  // d is piecewise constant
  // x-based (ElemwiseGradUseIn): v is the forward input x
  SetSecondOrder("_backward_abs", nullptr);
  SetSecondOrder("_backward_degrees", nullptr);  // linear
  SetSecondOrder("_backward_radians", nullptr);
  SetSecondOrder("_backward_square", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry&) {
    return Scale(n, hg, 2);  // d = 2x
  });
  SetSecondOrder("_backward_log", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, OverSquare(n, x, -1));  // d = 1 / x
  });
  SetSecondOrder("_backward_log2", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, OverSquare(n, x, -1 / kLn2));
  });
  SetSecondOrder("_backward_log10", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, OverSquare(n, x, -1 / kLn10));
  });
  SetSecondOrder("_backward_log1p", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, OverSquare(n, Shift(n, x, 1), -1));  // d = 1 / (1 + x)
  });
  SetSecondOrder("_backward_sin", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, Scale(n, Apply("sin", n, {x}), -1));  // d = cos x
  });
  SetSecondOrder("_backward_cos", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, Scale(n, Apply("cos", n, {x}), -1));  // d = -sin x
  });
  SetSecondOrder("_backward_sinh", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, Apply("sinh", n, {x}));  // d = cosh x
  });
  SetSecondOrder("_backward_cosh", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    return Mul(n, hg, Apply("cosh", n, {x}));  // d = sinh x
  });
  SetSecondOrder("_backward_arctan", [](const NodePtr& n, const NodeEntry& hg, const NodeEntry& x) {
    // d = 1 / (1 + x^2), d' = -2x / (1 + x^2)^2
    NodeEntry inv = Apply("reciprocal", n, {Shift(n, Apply("square", n, {x}), 1)});
    return Mul(n, hg, Mul(n, Scale(n, x, -2), Apply("square", n, {inv})));
  });
  // elemwise_mul's backward: (g, a, b) -> (g * b, g * a); with heads h0, h1 its gradient is
  // (h0 b + h1 a, h1 g, h0 g)
  Op::Register("_backward_mul")
      .set_attr<FGradient>("FGradient", [](const NodePtr& n, const std::vector<NodeEntry>& h) {
        const NodeEntry &g = n->inputs[0], &a = n->inputs[1], &b = n->inputs[2];
        NodeEntry dg = Apply("elemwise_add", n, {Mul(n, h[0], b), Mul(n, h[1], a)});
        return std::vector<NodeEntry>{dg, Mul(n, h[1], g), Mul(n, h[0], g)};
      });
  return true;
}();

}  // namespace

}  // namespace ops
}  // namespace symnet
