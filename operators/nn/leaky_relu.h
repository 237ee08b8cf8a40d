/*! \brief LeakyReLU's parameter and activation math (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_NN_LEAKY_RELU_H_
#define SYMNET_OPERATORS_NN_LEAKY_RELU_H_

#include <cmath>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

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
    DMLC_DECLARE_FIELD(lower_bound)
        .set_default(0.125f)
        .describe("rrelu lower bound (not supported).");
    DMLC_DECLARE_FIELD(upper_bound)
        .set_default(0.334f)
        .describe("rrelu upper bound (not supported).");
  }
};
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

/*! \brief f(x) and f'(x) for a slope a (leaky/prelu slope, elu alpha). */
template <typename A>
SYMNET_XINLINE A Act(int type, A x, A a) {
  switch (type) {
    case kLeaky:
    case kPReLU:
      return x > 0 ? x : a * x;
    case kELU:
      return x > 0 ? x : a * std::expm1(x);
    case kSELU:
      return static_cast<A>(kSeluLambda) * (x > 0 ? x : static_cast<A>(kSeluAlpha) * std::expm1(x));
    default:
      return static_cast<A>(0.5) * x * (A(1) + std::erf(x * static_cast<A>(kInvSqrt2)));
  }
}
template <typename A>
SYMNET_XINLINE A ActGrad(int type, A x, A a) {
  switch (type) {
    case kLeaky:
    case kPReLU:
      return x > 0 ? A(1) : a;
    case kELU:
      return x > 0 ? A(1) : a * std::exp(x);
    case kSELU:
      return static_cast<A>(kSeluLambda) *
             (x > 0 ? A(1) : static_cast<A>(kSeluAlpha) * std::exp(x));
    default:
      return static_cast<A>(0.5) * (A(1) + std::erf(x * static_cast<A>(kInvSqrt2))) +
             x * static_cast<A>(kInvSqrt2Pi) * std::exp(static_cast<A>(-0.5) * x * x);
  }
}

/*! \brief Channel of flat index i (prelu): axis 1 of the logical shape, in any layout. */
struct ChannelOf {
  int64_t c, inner;     // inner: elements per channel run (1 for channels-last)
  bool shared;          // gamma has one element
  int64_t spatial = 0;  // > 0 for nChw16c/nChw8c: positions per channel block
  int64_t block = 0;    // channels per block of a blocked layout
  SYMNET_XINLINE int64_t operator()(int64_t i) const {
    if (shared) return 0;
    if (spatial > 0) return ((i / (block * spatial)) % (c / block)) * block + i % block;
    return (i / inner) % c;
  }
};

inline ChannelOf MakeChannelOf(const TBlob& x, const Shape& gamma) {
  const Shape& s = x.shape_;
  const int64_t c = s.ndim() > 1 ? s[1] : 1;
  const int64_t sp = s.ndim() > 2 ? s.ProdRange(2, s.ndim()) : 1;
  const int64_t inner = x.channels_last() || s.ndim() < 2 ? 1 : sp;
  return ChannelOf{c, inner, gamma.Size() == 1, x.blocked() ? sp : 0, x.channel_block()};
}

// ---- element kernels of the GPU path (Kernel<OP, gpu>; checked on the CPU by leaky_relu_test)
// ----

template <int req>
struct LeakyForwardKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, const T* x, const T* gamma, T* y, int type, A slope,
                                 ChannelOf ch) {
    const A a = gamma ? static_cast<A>(gamma[ch(i)]) : slope;
    AssignReq<req>(&y[i], Act<A>(type, static_cast<A>(x[i]), a));
  }
};

template <int req>
struct LeakyBackwardKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, const T* dy, const T* x, const T* gamma, T* dx,
                                 int type, A slope, ChannelOf ch) {
    const A a = gamma ? static_cast<A>(gamma[ch(i)]) : slope;
    AssignReq<req>(&dx[i], static_cast<A>(dy[i]) * ActGrad<A>(type, static_cast<A>(x[i]), a));
  }
};

/*! \brief dgamma[c] = sum of dy * x over channel c's elements where x <= 0. */
template <int req>
struct PReluGammaGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t c, const T* dy, const T* x, T* dgamma, int64_t n,
                                 ChannelOf ch) {
    using A = AccType<T>;
    double acc = 0;
    const int64_t channels = ch.shared ? 1 : ch.c, run = ch.shared ? n : ch.inner;
    for (int64_t start = c * run; start < n; start += channels * run)
      for (int64_t i = start; i < start + run; ++i) {
        const A xv = static_cast<A>(x[i]);
        if (xv <= A(0)) acc += static_cast<double>(static_cast<A>(dy[i])) * xv;
      }
    AssignReq<req>(&dgamma[c], static_cast<A>(acc));
  }
};

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_LEAKY_RELU_H_
