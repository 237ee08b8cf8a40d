/*!
 * \brief Pad (alias pad): constant, edge or reflect padding of the spatial axes of 4-D and 5-D
 *  data, as MXNet 1.9.1 allows it (axes 0 and 1 are never padded). Both directions are gathers,
 *  one kernel thread per element written, so the GPU needs no atomics and results are
 *  deterministic: the forward reads the input element each output position maps to; the
 *  backward sums, for each input element, the output positions that read it (one for constant
 *  padding, a run along an edge, up to three for reflection).
 */
#ifndef SYMNET_OPERATORS_TENSOR_PAD_H_
#define SYMNET_OPERATORS_TENSOR_PAD_H_

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum PadMode { kPadConstant, kPadEdge, kPadReflect };

struct PadParam : public dmlc::Parameter<PadParam> {
  int mode;
  Shape pad_width;
  double constant_value;
  DMLC_DECLARE_PARAMETER(PadParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("constant", kPadConstant)
        .add_enum("edge", kPadEdge)
        .add_enum("reflect", kPadReflect)
        .describe(
            "constant pads with constant_value, edge repeats the border element, reflect mirrors "
            "the data about its border element (which is not repeated).");
    DMLC_DECLARE_FIELD(pad_width).describe(
        "(before_1, after_1, ..., before_N, after_N): the widths added before and after each "
        "axis. Axes 1 and 2 (batch and channel) take 0.");
    DMLC_DECLARE_FIELD(constant_value).set_default(0.0).describe("The value of mode='constant'.");
  }
};

/*!
 * \brief The data as `planes` (batch x channel) of up to 3 spatial dims (4-D data gets a leading
 *  dim of 1 with no padding).
 */
struct PadGeo {
  int64_t planes;
  int64_t in[3], out[3], before[3], after[3];
  int mode;
  double value;
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
};

/*! \brief Checks the data shape against pad_width (MXNet's rules) and returns the geometry. */
PadGeo MakePadGeo(const PadParam& p, const Shape& x);

/*! \brief The input position output position o (before-padding `b`, input length n) reads. */
SYMNET_XINLINE int64_t PadSource(int mode, int64_t o, int64_t n, int64_t b) {
  const int64_t s = o - b;
  if (s >= 0 && s < n) return s;
  if (mode == kPadConstant) return -1;
  if (mode == kPadEdge) return s < 0 ? 0 : n - 1;
  return s < 0 ? -s : 2 * (n - 1) - s;  // a single reflection: widths are below n
}

/*!
 * \brief The output positions that read input position i, as up to three half-open runs
 *  [lo, hi); returns how many.
 */
SYMNET_XINLINE int PadReaders(int mode, int64_t i, int64_t n, int64_t b, int64_t a, int64_t* lo,
                              int64_t* hi) {
  lo[0] = b + i;
  hi[0] = b + i + 1;
  if (mode == kPadEdge) {
    if (i == 0) lo[0] = 0;
    if (i == n - 1) hi[0] = b + n + a;
    return 1;
  }
  if (mode == kPadConstant) return 1;
  int k = 1;
  if (i >= 1 && i <= b) {
    lo[k] = b - i;
    hi[k] = lo[k] + 1;
    ++k;
  }
  const int64_t j = n - 1 - i;  // distance from the far border
  if (j >= 1 && j <= a) {
    lo[k] = b + n - 1 + j;
    hi[k] = lo[k] + 1;
    ++k;
  }
  return k;
}

template <int req>
struct PadForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* x, T* y, PadGeo g) {
    int64_t t = idx;
    const int64_t o2 = t % g.out[2];
    t /= g.out[2];
    const int64_t o1 = t % g.out[1];
    t /= g.out[1];
    const int64_t o0 = t % g.out[0];
    const int64_t plane = t / g.out[0];
    const int64_t s0 = PadSource(g.mode, o0, g.in[0], g.before[0]);
    const int64_t s1 = PadSource(g.mode, o1, g.in[1], g.before[1]);
    const int64_t s2 = PadSource(g.mode, o2, g.in[2], g.before[2]);
    using A = AccType<T>;
    A v;
    if (s0 < 0 || s1 < 0 || s2 < 0) {
      v = static_cast<A>(g.value);
    } else {
      v = static_cast<A>(x[plane * g.in_size() + (s0 * g.in[1] + s1) * g.in[2] + s2]);
    }
    AssignReq<req>(&y[idx], v);
  }
};

template <int req>
struct PadBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t idx, const T* dy, T* dx, PadGeo g) {
    int64_t t = idx;
    const int64_t i2 = t % g.in[2];
    t /= g.in[2];
    const int64_t i1 = t % g.in[1];
    t /= g.in[1];
    const int64_t i0 = t % g.in[0];
    const int64_t plane = t / g.in[0];
    int64_t lo0[3], hi0[3], lo1[3], hi1[3], lo2[3], hi2[3];
    const int n0 = PadReaders(g.mode, i0, g.in[0], g.before[0], g.after[0], lo0, hi0);
    const int n1 = PadReaders(g.mode, i1, g.in[1], g.before[1], g.after[1], lo1, hi1);
    const int n2 = PadReaders(g.mode, i2, g.in[2], g.before[2], g.after[2], lo2, hi2);
    const T* dyp = dy + plane * g.out_size();
    using A = AccType<T>;
    A acc = 0;
    for (int a = 0; a < n0; ++a)
      for (int64_t o0 = lo0[a]; o0 < hi0[a]; ++o0)
        for (int b = 0; b < n1; ++b)
          for (int64_t o1 = lo1[b]; o1 < hi1[b]; ++o1)
            for (int c = 0; c < n2; ++c)
              for (int64_t o2 = lo2[c]; o2 < hi2[c]; ++o2)
                acc += static_cast<A>(dyp[(o0 * g.out[1] + o1) * g.out[2] + o2]);
    AssignReq<req>(&dx[idx], acc);
  }
};

template <typename xpu>
void PadForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const PadGeo g = MakePadGeo(Param<PadParam>(attrs), in[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<PadForwardKernel<Req>, xpu>::Launch(out[0].Size(), in[0].dptr<T>(), out[0].dptr<T>(),
                                                 g);
    });
  });
}

/*! \brief Input dy; output dx. */
template <typename xpu>
void PadBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const PadGeo g = MakePadGeo(Param<PadParam>(attrs), out[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<PadBackwardKernel<Req>, xpu>::Launch(out[0].Size(), in[0].dptr<T>(), out[0].dptr<T>(),
                                                  g);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_PAD_H_
