/*!
 * \brief _contrib_BilinearResize2D: bilinear resizing of the last two axes of (N, C, H, W) data,
 *  with MXNet 1.9.1's size modes and coordinate mapping. With align_corners the corner pixels
 *  of input and output coincide (source = o * (in - 1) / (out - 1)); without, pixel centres do
 *  (source = (o + 0.5) * in / out - 0.5, clamped at 0). Both directions are gathers (one kernel
 *  thread per element written, no atomics): the backward visits, per input element, the output
 *  rows and columns whose interpolation reads it.
 */
#ifndef SYMNET_OPERATORS_NN_BILINEAR_RESIZE_H_
#define SYMNET_OPERATORS_NN_BILINEAR_RESIZE_H_

#include <cmath>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum ResizeMode {
  kResizeSize,
  kResizeOddScale,
  kResizeLike,
  kResizeToEvenDown,
  kResizeToEvenUp,
  kResizeToOddDown,
  kResizeToOddUp
};

struct BilinearResize2DParam : public dmlc::Parameter<BilinearResize2DParam> {
  int height, width;
  dmlc::optional<float> scale_height, scale_width;
  int mode;
  bool align_corners;
  DMLC_DECLARE_PARAMETER(BilinearResize2DParam) {
    DMLC_DECLARE_FIELD(height).set_default(1).set_range(1, 10000).describe(
        "Output height in mode 'size' without scale_height.");
    DMLC_DECLARE_FIELD(width).set_default(1).set_range(1, 10000).describe(
        "Output width in mode 'size' without scale_height.");
    DMLC_DECLARE_FIELD(scale_height)
        .set_default(dmlc::optional<float>())
        .describe("Height factor (modes 'size' and 'odd_scale').");
    DMLC_DECLARE_FIELD(scale_width)
        .set_default(dmlc::optional<float>())
        .describe("Width factor (modes 'size', with scale_height, and 'odd_scale').");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("size", kResizeSize)
        .add_enum("odd_scale", kResizeOddScale)
        .add_enum("like", kResizeLike)
        .add_enum("to_even_down", kResizeToEvenDown)
        .add_enum("to_even_up", kResizeToEvenUp)
        .add_enum("to_odd_down", kResizeToOddDown)
        .add_enum("to_odd_up", kResizeToOddUp)
        .set_default(kResizeSize)
        .describe(
            "size: (height, width), or the input's size times the scales when scale_height is "
            "given; odd_scale: an even size times the scale, an odd one (size - 1) * scale + 1; "
            "like: the last two axes of the second input; to_even_down/up, to_odd_down/up: the "
            "nearest even or odd size below or above an odd or even one.");
    DMLC_DECLARE_FIELD(align_corners)
        .set_default(true)
        .describe("Map corner pixels onto corner pixels (else pixel centres onto centres).");
  }
};

/*! \brief One resized axis: input and output lengths and the source-coordinate rule. */
struct ResizeAxis {
  int64_t in, out;
  double ratio;
  bool align;
};

inline ResizeAxis MakeResizeAxis(int64_t in, int64_t out, bool align) {
  double r = 0;
  if (align) {
    r = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  } else if (out > 0) {
    r = static_cast<double>(in) / static_cast<double>(out);
  }
  return {in, out, r, align};
}

/*! \brief Output position o reads inputs i0 and i1 with weights 1 - l and l. */
SYMNET_XINLINE void ResizeLerp(const ResizeAxis& a, int64_t o, int64_t* i0, int64_t* i1,
                               double* l) {
  double s = a.align ? a.ratio * static_cast<double>(o) : a.ratio * (o + 0.5) - 0.5;
  if (s < 0) s = 0;
  *i0 = static_cast<int64_t>(s);
  *i1 = *i0 + (*i0 < a.in - 1 ? 1 : 0);
  *l = s - static_cast<double>(*i0);
}

/*!
 * \brief A range of output positions that contains every one reading input i (the source
 *  coordinate grows with o, so they are contiguous); the caller tests each exactly.
 */
SYMNET_XINLINE void ResizeReaders(const ResizeAxis& a, int64_t i, int64_t* lo, int64_t* hi) {
  if (a.ratio <= 0) {
    *lo = 0;
    *hi = a.out;
    return;
  }
  const double first = a.align ? (i - 1) / a.ratio : (i - 0.5) / a.ratio - 0.5;
  const double last = a.align ? (i + 1) / a.ratio : (i + 1.5) / a.ratio - 0.5;
  // inputs 0 and 1 are also read by the outputs whose coordinate clamps to 0
  const int64_t l = i <= 1 ? 0 : static_cast<int64_t>(floor(first)) - 2;
  const int64_t h = static_cast<int64_t>(ceil(last)) + 3;
  *lo = l < 0 ? 0 : l;
  *hi = h < a.out ? h : a.out;
}

/*! \brief The weight input i has in output o's interpolation along one axis. */
SYMNET_XINLINE double ResizeWeight(const ResizeAxis& a, int64_t o, int64_t i) {
  int64_t i0, i1;
  double l;
  ResizeLerp(a, o, &i0, &i1, &l);
  return (i0 == i ? 1.0 - l : 0.0) + (i1 == i ? l : 0.0);
}

template <int req>
struct ResizeForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* x, T* y, ResizeAxis ay, ResizeAxis ax) {
    const int64_t ow = idx % ax.out, oh = (idx / ax.out) % ay.out, plane = idx / (ax.out * ay.out);
    int64_t y0, y1, x0, x1;
    double ly, lx;
    ResizeLerp(ay, oh, &y0, &y1, &ly);
    ResizeLerp(ax, ow, &x0, &x1, &lx);
    const T* p = x + plane * ay.in * ax.in;
    using A = AccType<T>;
    const double top =
        (1 - lx) * static_cast<A>(p[y0 * ax.in + x0]) + lx * static_cast<A>(p[y0 * ax.in + x1]);
    const double bottom =
        (1 - lx) * static_cast<A>(p[y1 * ax.in + x0]) + lx * static_cast<A>(p[y1 * ax.in + x1]);
    AssignReq<req>(&y[idx], static_cast<A>((1 - ly) * top + ly * bottom));
  }
};

template <int req>
struct ResizeBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* dy, T* dx, ResizeAxis ay, ResizeAxis ax) {
    const int64_t iw = idx % ax.in, ih = (idx / ax.in) % ay.in, plane = idx / (ax.in * ay.in);
    int64_t hlo, hhi, wlo, whi;
    ResizeReaders(ay, ih, &hlo, &hhi);
    ResizeReaders(ax, iw, &wlo, &whi);
    const T* g = dy + plane * ay.out * ax.out;
    double acc = 0;
    for (int64_t oh = hlo; oh < hhi; ++oh) {
      const double wy = ResizeWeight(ay, oh, ih);
      if (wy == 0) continue;
      double row = 0;
      for (int64_t ow = wlo; ow < whi; ++ow) {
        const double wx = ResizeWeight(ax, ow, iw);
        if (wx != 0) row += wx * static_cast<AccType<T>>(g[oh * ax.out + ow]);
      }
      acc += wy * row;
    }
    AssignReq<req>(&dx[idx], static_cast<AccType<T>>(acc));
  }
};

/*! \brief Inputs data (and like, unused here); output y. */
template <typename xpu>
void BilinearResizeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const bool align = Param<BilinearResize2DParam>(attrs).align_corners;
  const Shape &xs = in[0].shape_, &ys = out[0].shape_;
  const ResizeAxis ay = MakeResizeAxis(xs[2], ys[2], align),
                   ax = MakeResizeAxis(xs[3], ys[3], align);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ResizeForwardKernel<Req>, xpu>::Launch(out[0].Size(), in[0].dptr<T>(),
                                                    out[0].dptr<T>(), ay, ax);
    });
  });
}

/*! \brief Input dy; output dx (like's gradient is the zeros the gradient pass makes). */
template <typename xpu>
void BilinearResizeBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const bool align = Param<BilinearResize2DParam>(attrs).align_corners;
  const Shape &xs = out[0].shape_, &ys = in[0].shape_;
  const ResizeAxis ay = MakeResizeAxis(xs[2], ys[2], align),
                   ax = MakeResizeAxis(xs[3], ys[3], align);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ResizeBackwardKernel<Req>, xpu>::Launch(out[0].Size(), in[0].dptr<T>(),
                                                     out[0].dptr<T>(), ay, ax);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_BILINEAR_RESIZE_H_
