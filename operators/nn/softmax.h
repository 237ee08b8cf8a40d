/*!
 * \brief Softmax along an axis of an (outer, n, inner) view: softmax/log_softmax and SoftmaxOutput,
 *  parameters and row kernels (one row per work item, math in float/double with the row max
 *  subtracted), templated on the device.
 */
#ifndef SYMNET_OPERATORS_NN_SOFTMAX_H_
#define SYMNET_OPERATORS_NN_SOFTMAX_H_

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "../axis_split.h"
#include "../operator_common.h"
#include "../tensor/elemwise_kernels.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*! \brief Row r of (outer, n, inner): y = softmax(x / t) or log_softmax, scale inv_t = 1/t. */
template <bool is_log, int req>
struct SoftmaxRowKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t r, const T* x, T* y, AxisSplit sp, A inv_t) {
    const int64_t base = (r / sp.inner) * sp.n * sp.inner + r % sp.inner;
    A mx = -INFINITY;
    for (int64_t k = 0; k < sp.n; ++k) {
      const A v = static_cast<A>(x[base + k * sp.inner]) * inv_t;
      mx = v > mx ? v : mx;
    }
    A sum = 0;
    for (int64_t k = 0; k < sp.n; ++k)
      sum += std::exp(static_cast<A>(x[base + k * sp.inner]) * inv_t - mx);
    const A log_sum = std::log(sum);
    for (int64_t k = 0; k < sp.n; ++k) {
      const A z = static_cast<A>(x[base + k * sp.inner]) * inv_t - mx;
      AssignReq<req>(&y[base + k * sp.inner], is_log ? z - log_sum : std::exp(z) / sum);
    }
  }
};

/*! \brief softmax: dx = y (dy - sum(dy y)) / t; log_softmax: dx = (dy - exp(y) sum(dy)) / t. */
template <bool is_log, int req>
struct SoftmaxGradRowKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t r, const T* dy, const T* y, T* dx, AxisSplit sp, A inv_t) {
    const int64_t base = (r / sp.inner) * sp.n * sp.inner + r % sp.inner;
    A s = 0;
    for (int64_t k = 0; k < sp.n; ++k) {
      const int64_t i = base + k * sp.inner;
      s += is_log ? static_cast<A>(dy[i]) : static_cast<A>(dy[i]) * static_cast<A>(y[i]);
    }
    for (int64_t k = 0; k < sp.n; ++k) {
      const int64_t i = base + k * sp.inner;
      const A g = static_cast<A>(dy[i]), v = static_cast<A>(y[i]);
      AssignReq<req>(&dx[i], (is_log ? g - std::exp(v) * s : v * (g - s)) * inv_t);
    }
  }
};

template <typename xpu, bool is_log, typename T>
void SoftmaxForward(const T* x, T* y, AxisSplit sp, double t, OpReqType req) {
  using A = AccType<T>;
  SYMNET_REQ_SWITCH(req, Req, {
    Kernel<SoftmaxRowKernel<is_log, Req>, xpu>::LaunchCost(sp.outer * sp.inner, sp.n, x, y, sp,
                                                           static_cast<A>(1.0 / t));
  });
}

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis along which to compute softmax.");
    DMLC_DECLARE_FIELD(temperature)
        .set_default(dmlc::optional<double>())
        .describe("Temperature: softmax(x / temperature). None means 1.");
  }
};

/*! \brief softmax, log_softmax, or with is_min softmin = softmax(-x / t): the same kernels with
 *  the scale 1/t negated (the gradient picks up the same factor by the chain rule). */
template <bool is_log, typename xpu = cpu, bool is_min = false>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  const double t =
      (is_min ? -1.0 : 1.0) * (p.temperature.has_value() ? p.temperature.value() : 1.0);
  const AxisSplit sp = SplitAtAxis(in[0].shape_, p.axis);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SoftmaxForward<xpu, is_log>(in[0].dptr<T>(), out[0].dptr<T>(), sp, t, req[0]);
  });
}

/*! \brief Inputs (dy, y). */
template <bool is_log, typename xpu = cpu, bool is_min = false>
void SoftmaxGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  const double t =
      (is_min ? -1.0 : 1.0) * (p.temperature.has_value() ? p.temperature.value() : 1.0);
  const AxisSplit sp = SplitAtAxis(in[1].shape_, p.axis);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<SoftmaxGradRowKernel<is_log, Req>, xpu>::LaunchCost(
          sp.outer * sp.inner, sp.n, in[0].dptr<T>(), in[1].dptr<T>(), out[0].dptr<T>(), sp,
          static_cast<A>(1.0 / t));
    });
  });
}

// ---- SoftmaxOutput ------------------------------------------------------------------------------

enum SoftmaxNorm { kNormNull, kNormBatch, kNormValid };

struct SoftmaxOutputParam : public dmlc::Parameter<SoftmaxOutputParam> {
  float grad_scale;
  float ignore_label;
  bool multi_output;
  bool use_ignore;
  bool preserve_shape;
  int normalization;
  bool out_grad;
  float smooth_alpha;
  DMLC_DECLARE_PARAMETER(SoftmaxOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient.");
    DMLC_DECLARE_FIELD(ignore_label)
        .set_default(-1.0f)
        .describe("Label whose gradient is zero (with use_ignore).");
    DMLC_DECLARE_FIELD(multi_output)
        .set_default(false)
        .describe("Softmax over axis 1 of (n, k, x1, ..., xn), one label per (n, x1, ..., xn).");
    DMLC_DECLARE_FIELD(use_ignore).set_default(false).describe("Honour ignore_label.");
    DMLC_DECLARE_FIELD(preserve_shape)
        .set_default(false)
        .describe("Softmax over the last axis, keeping the input shape.");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", kNormNull)
        .add_enum("batch", kNormBatch)
        .add_enum("valid", kNormValid)
        .set_default(kNormNull)
        .describe(
            "Divide the gradient by the positions per sample (multi_output; else nothing), the "
            "number of labels, or the number of labels other than ignore_label.");
    DMLC_DECLARE_FIELD(out_grad).set_default(false).describe(
        "Multiply the gradient by the head gradient (otherwise it is ignored).");
    DMLC_DECLARE_FIELD(smooth_alpha)
        .set_default(0.0f)
        .set_range(0.0f, 1.0f)
        .describe(
            "Label smoothing: the target puts 1-alpha on the label and spreads alpha over the "
            "rest.");
  }
};

/*! \brief (outer, classes, inner) view of the data, by mode. */
inline AxisSplit ClassSplit(const SoftmaxOutputParam& p, const Shape& d) {
  if (p.multi_output) return SplitAtAxis(d, 1);
  if (p.preserve_shape) return SplitAtAxis(d, -1);
  return AxisSplit{d[0], d.ProdRange(1, d.ndim()), 1};
}

/*! \brief Whether a hard label names a class of [0, n): a whole number in range. A fractional
 *  label (2.5) is a user's mistake that a cast would silently truncate, so it counts as bad. */
template <typename A>
SYMNET_XINLINE bool IsClassIndex(A lab, int64_t n) {
  return lab >= A(0) && lab < static_cast<A>(n) && static_cast<A>(static_cast<int64_t>(lab)) == lab;
}

/*! \brief The error for a label that is not a class index, naming the value and where it is
 *  ("at batch position 2"); `outside_hint` is added when the label is out of range. */
inline std::string BadLabelMessage(double lab, int64_t n, const std::string& where,
                                   const char* outside_hint = "") {
  std::ostringstream os;
  os << "label " << lab << " " << where;
  if (lab >= 0 && lab < static_cast<double>(n))
    os << " is not a whole number (hard labels are class indices; class probabilities need the "
          "data's shape)";
  else
    os << " is outside [0, " << n << "), the number of classes" << outside_hint;
  return os.str();
}

/*! \brief What every row of SoftmaxOutput's gradient needs. */
struct SoftmaxOutputGradArgs {
  AxisSplit sp;
  double scale;    // grad_scale * loss_scale / NormalizationDivisor (and "valid"'s count)
  double on, off;  // smoothed targets of the label class and of the others
  float ignore_label;
  bool soft_labels, use_ignore;
  const float* valid;  // with normalization "valid": the number of valid labels (else null)
};

/*!
 * \brief What SoftmaxOutput's gradient is divided by, as MXNet 1.9.1 does it. Class indices:
 *  "null" divides by the positions per sample (the spatial size `sp.inner` with multi_output,
 *  1 otherwise), "batch" by all labels (samples times positions). "valid" divides by the labels
 *  other than ignore_label (at least 1), counted at run time with or without use_ignore, so its
 *  divisor here is 1. Class probabilities (a label of the data's shape) have no divisor,
 *  whatever the normalization.
 */
inline double NormalizationDivisor(const SoftmaxOutputParam& p, const AxisSplit& sp,
                                   bool soft_labels) {
  if (soft_labels) return 1.0;
  if (p.normalization == kNormBatch)
    return static_cast<double>(std::max<int64_t>(sp.outer * sp.inner, 1));
  if (p.normalization == kNormNull) return static_cast<double>(std::max<int64_t>(sp.inner, 1));
  return 1.0;
}

/*! \brief Row r: dx = (y - target) * scale [* dy], zero for an ignored label. */
template <int req>
struct SoftmaxOutputGradRowKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t r, const T* label, const T* y, const T* dy, T* dx,
                                 SoftmaxOutputGradArgs a) {
    using A = AccType<T>;
    const AxisSplit sp = a.sp;
    const int64_t base = (r / sp.inner) * sp.n * sp.inner + r % sp.inner;
    const A lab = a.soft_labels ? A(0) : static_cast<A>(label[r]);
    const bool ignored = !a.soft_labels && a.use_ignore && lab == static_cast<A>(a.ignore_label);
    // as MXNet 1.9.1: the label truncates toward zero (1.5 -> class 1, -0.5 -> class 0), and one
    // outside [0, n) (padding -1 without use_ignore, 7 of 3 classes) matches no class, so its row
    // gets the plain softmax (minus the smoothing's off value) as gradient, without an error
    const int64_t cls = lab > A(-1) && lab < static_cast<A>(sp.n) ? static_cast<int64_t>(lab) : -1;
    A scale = static_cast<A>(a.valid ? a.scale / (*a.valid > 1.0f ? *a.valid : 1.0f) : a.scale);
    for (int64_t k = 0; k < sp.n; ++k) {
      const int64_t i = base + k * sp.inner;
      const A target = a.soft_labels ? static_cast<A>(label[i]) : (k == cls ? A(a.on) : A(a.off));
      A g = ignored ? A(0) : (static_cast<A>(y[i]) - target) * scale;
      if (dy) g *= static_cast<A>(dy[i]);
      AssignReq<req>(&dx[i], g);
    }
  }
};

/*! \brief The number of labels that are not ignore_label, where the kernels can read it: a
 *  host value on the CPU, a device scalar on a GPU (defined in softmax_output.cu). */
template <typename T>
const float* CountValidLabels(cpu, const T* label, int64_t rows, float ignore, float* host_slot,
                              const OpContext&) {
  float valid = 0;
  for (int64_t r = 0; r < rows; ++r)
    valid += static_cast<AccType<T>>(label[r]) != static_cast<AccType<T>>(ignore);
  *host_slot = valid;
  return host_slot;
}
template <typename T>
const float* CountValidLabels(gpu, const T* label, int64_t rows, float ignore, float* host_slot,
                              const OpContext& ctx);

template <typename xpu = cpu>
void SoftmaxOutputCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AxisSplit sp = ClassSplit(Param<SoftmaxOutputParam>(attrs), in[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SoftmaxForward<xpu, false>(in[0].dptr<T>(), out[0].dptr<T>(), sp, 1.0, req[0]);
  });
}

/*! \brief Inputs (label, y[, dy with out_grad]); outputs (ddata, dlabel = 0). */
template <typename xpu = cpu>
void SoftmaxOutputGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SoftmaxOutputParam& p = Param<SoftmaxOutputParam>(attrs);
  if (req[0] != kNullOp) {
    const TBlob& label = in[0];
    const TBlob& y = in[1];
    SoftmaxOutputGradArgs a;
    a.sp = ClassSplit(p, y.shape_);
    a.soft_labels = label.shape_ == y.shape_;
    a.use_ignore = p.use_ignore;
    a.ignore_label = p.ignore_label;
    const int64_t rows = a.sp.outer * a.sp.inner;
    a.scale = p.grad_scale * ctx.loss_scale / NormalizationDivisor(p, a.sp, a.soft_labels);
    a.off = a.sp.n > 1 ? p.smooth_alpha / static_cast<double>(a.sp.n - 1) : 0.0;
    a.on = 1.0 - p.smooth_alpha;
    float host_valid = 0;
    SYMNET_FLOAT_TYPE_SWITCH(y.dtype_, T, {
      a.valid =
          p.normalization == kNormValid && !a.soft_labels
              ? CountValidLabels<T>(xpu(), label.dptr<T>(), rows, p.ignore_label, &host_valid, ctx)
              : nullptr;
      SYMNET_REQ_SWITCH(req[0], Req, {
        Kernel<SoftmaxOutputGradRowKernel<Req>, xpu>::LaunchCost(
            rows, y.Size() / (rows ? rows : 1), label.dptr<T>(), y.dptr<T>(),
            p.out_grad ? in[2].dptr<T>() : nullptr, out[0].dptr<T>(), a);
      });
    });
  }
  ZerosCompute(attrs, ctx, {}, {req[1]}, {out[1]});  // the label gets no gradient
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_SOFTMAX_H_
