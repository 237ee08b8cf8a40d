/*!
 * \brief The per-element optimizer math shared by single and fused multi-weight update ops.
 *  Gradients are first rescaled, then clipped: with loss scaling, rescale_grad holds
 *  1/(batch * loss_scale), so clipping applies to the true (unscaled) gradient.
 */
#ifndef SYMNET_OPERATORS_OPTIMIZER_UPDATE_KERNELS_H_
#define SYMNET_OPERATORS_OPTIMIZER_UPDATE_KERNELS_H_

#include <cmath>

#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct SGDHyper {
  float lr, wd, momentum, rescale, clip;  // clip < 0: no clipping
};

template <typename A>
SYMNET_XINLINE A RescaleClip(A g, A rescale, A clip) {
  g *= rescale;
  if (clip >= A(0)) g = g > clip ? clip : (g < -clip ? -clip : g);
  return g;
}

/*!
 * \brief One SGD step per element. W: weight type; M: type of momentum and master weight.
 *  mom == nullptr: plain SGD. w32 == nullptr: the weight itself is the master copy.
 *  out receives the new weight (may alias weight).
 */
struct SGDKernel {
  template <typename W, typename M>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, M* mom, M* w32, W* out,
                                 SGDHyper h) {
    using A = AccType<W>;  // float for 16-bit and float32 weights, double for float64
    const A g =
        RescaleClip(static_cast<A>(static_cast<AccType<W>>(grad[i])), A(h.rescale), A(h.clip));
    A w = w32 ? static_cast<A>(w32[i]) : static_cast<A>(static_cast<AccType<W>>(weight[i]));
    if (mom) {
      const A m = h.momentum * static_cast<A>(mom[i]) - h.lr * h.wd * w - h.lr * g;
      mom[i] = M(m);
      w += m;
    } else {
      w = (A(1) - h.lr * h.wd) * w - h.lr * g;
    }
    if (w32) w32[i] = M(w);
    out[i] = W(w);
  }
};

/*!
 * \brief One Nesterov step (MXNet's nag_mom_update, PyTorch's SGD(nesterov=True)):
 *  g' = clip(rescale*g) + wd*w; mom = momentum*mom + g'; w -= lr*(g' + momentum*mom).
 */
struct NAGKernel {
  template <typename W, typename M>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, M* mom, M* w32, W* out,
                                 SGDHyper h) {
    using A = AccType<W>;  // float for 16-bit and float32 weights, double for float64
    A w = w32 ? static_cast<A>(w32[i]) : static_cast<A>(static_cast<AccType<W>>(weight[i]));
    const A g =
        RescaleClip(static_cast<A>(static_cast<AccType<W>>(grad[i])), A(h.rescale), A(h.clip)) +
        h.wd * w;
    const A m = h.momentum * static_cast<A>(mom[i]) + g;
    mom[i] = M(m);
    w -= h.lr * (g + h.momentum * m);
    if (w32) w32[i] = M(w);
    out[i] = W(w);
  }
};

struct AdamHyper {
  float lr, beta1, beta2, epsilon, wd, rescale, clip;
};

/*! \brief One Adam step (MXNet's adam_update: bias correction is folded into lr by the caller). */
struct AdamKernel {
  template <typename W, typename M>
  SYMNET_XINLINE static void Map(int64_t i, const W* weight, const W* grad, M* mean, M* var, M* w32,
                                 W* out, AdamHyper h) {
    using A = AccType<W>;  // float for 16-bit and float32 weights, double for float64
    A w = w32 ? static_cast<A>(w32[i]) : static_cast<A>(static_cast<AccType<W>>(weight[i]));
    const A g =
        RescaleClip(static_cast<A>(static_cast<AccType<W>>(grad[i])), A(h.rescale), A(h.clip)) +
        h.wd * w;
    const A m = h.beta1 * static_cast<A>(mean[i]) + (A(1) - h.beta1) * g;
    const A v = h.beta2 * static_cast<A>(var[i]) + (A(1) - h.beta2) * g * g;
    mean[i] = M(m);
    var[i] = M(v);
    w -= h.lr * m / (std::sqrt(v) + h.epsilon);
    if (w32) w32[i] = M(w);
    out[i] = W(w);
  }
};

template <typename xpu, typename W, typename M>
void SGDStep(int64_t n, const W* weight, const W* grad, M* mom, M* w32, W* out, const SGDHyper& h) {
  Kernel<SGDKernel, xpu>::Launch(n, weight, grad, mom, w32, out, h);
}

template <typename xpu, typename W, typename M>
void NAGStep(int64_t n, const W* weight, const W* grad, M* mom, M* w32, W* out, const SGDHyper& h) {
  Kernel<NAGKernel, xpu>::Launch(n, weight, grad, mom, w32, out, h);
}

template <typename xpu, typename W, typename M>
void AdamStep(int64_t n, const W* weight, const W* grad, M* mean, M* var, M* w32, W* out,
              const AdamHyper& h) {
  Kernel<AdamKernel, xpu>::Launch(n, weight, grad, mean, var, w32, out, h);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_OPTIMIZER_UPDATE_KERNELS_H_
