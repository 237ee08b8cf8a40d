/*!
 * \brief Plain-loop convolution (forward, backward) for any float dtype; each operand may be
 *  stored channels-first or channels-last (addressed through strides).
 */
#include <algorithm>
#include <cstring>

#include "convolution.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

namespace {

/*! \brief Spatial dims padded to 3 (d, h, w) so one loop nest serves 1-D, 2-D and 3-D. */
struct Geo3 {
  int64_t in[3], out[3], k[3], s[3], d[3], p[3];
  explicit Geo3(const ConvGeometry& g) {
    const int off = 3 - g.nsp();
    for (int i = 0; i < 3; ++i) {
      const bool real = i >= off;
      in[i] = real ? g.in[i - off] : 1;
      out[i] = real ? g.out[i - off] : 1;
      k[i] = real ? g.kernel[i - off] : 1;
      s[i] = real ? g.stride[i - off] : 1;
      d[i] = real ? g.dilate[i - off] : 1;
      p[i] = real ? g.pad[i - off] : 0;
    }
  }
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

/*!
 * \brief Visits every run of output positions along the innermost spatial axis that reads one
 *  kernel tap inside the input: f(out_index, kernel_index, in_index, count), where output
 *  out_index + t reads input in_index + t * stride for t < count. Working on runs instead of
 *  single taps takes the bounds checks and index arithmetic out of the inner loop (5-10x on
 *  float64, which has no oneDNN path and is what gradient checks run).
 */
template <typename F>
inline void ForEachTapRun(const Geo3& g, F f) {
  if (g.k_size() == 1 && g.in_size() == g.out_size() && g.s[2] == 1 && g.p[0] == 0 && g.p[1] == 0 &&
      g.p[2] == 0 && g.s[0] == 1 && g.s[1] == 1) {
    f(0, 0, 0, g.out_size());  // a 1x1 convolution, stride 1, no padding: one run of the plane
    return;
  }
  for (int64_t od = 0; od < g.out[0]; ++od)
    for (int64_t oh = 0; oh < g.out[1]; ++oh)
      for (int64_t kd = 0; kd < g.k[0]; ++kd) {
        const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
          const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
          if (ih < 0 || ih >= g.in[1]) continue;
          for (int64_t kw = 0; kw < g.k[2]; ++kw) {
            // ow reads iw = ow * s + off, inside [0, in) for ow in [lo, hi]
            const int64_t off = kw * g.d[2] - g.p[2], s = g.s[2];
            const int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
            const int64_t last_in = g.in[2] - 1 - off;
            if (last_in < 0) continue;
            const int64_t hi = std::min(g.out[2] - 1, last_in / s);
            if (hi < lo) continue;
            f((od * g.out[1] + oh) * g.out[2] + lo, (kd * g.k[1] + kh) * g.k[2] + kw,
              (id * g.in[1] + ih) * g.in[2] + lo * s + off, hi - lo + 1);
          }
        }
      }
}

/*!
 * \brief Element strides of (outer, channel, spatial index) for a channels-first view `b` with
 *  `inner` spatial positions: data (n, c, i) and weights (o, c, k) alike.
 */
struct Strides {
  int64_t outer, c, sp;
  int64_t at(int64_t o, int64_t c_, int64_t i) const { return o * outer + c_ * c + i * sp; }
};
Strides StridesOf(const TBlob& b, int64_t inner) {
  const int64_t channels = b.shape_[1];
  if (b.channels_last()) return {inner * channels, 1, channels};
  return {channels * inner, inner, 1};
}

/*! \brief dst (outer, c, i) from src laid out channels-first (outer, c, i). */
template <typename T>
void Accumulate(T* dst, const Strides& st, int64_t channels, int64_t inner,
                const std::vector<double>& src, OpReqType req) {
  if (req == kNullOp) return;
  for (size_t j = 0; j < src.size(); ++j) {
    const int64_t i = static_cast<int64_t>(j);
    T* d = dst + st.at(i / (channels * inner), (i / inner) % channels, i % inner);
    if (req == kAddTo) {
      AssignReq<kAddTo>(d, static_cast<AccType<T>>(src[j]));
    } else {
      AssignReq<kWriteTo>(d, static_cast<AccType<T>>(src[j]));
    }
  }
}

/*! \brief x, w, y: channels-first views (any storage order). */
template <typename T>
void Forward(const ConvGeometry& cg, const TBlob& xb, const TBlob& wb, const T* b, const TBlob& yb,
             OpReqType req) {
  const Geo3 g(cg);
  const int64_t cpg = cg.c / cg.groups, opg = cg.o / cg.groups;
  const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.k_size();
  const Strides xs = StridesOf(xb, isz), ws = StridesOf(wb, ksz), ys = StridesOf(yb, osz);
  const T* x = xb.dptr<T>();
  const T* w = wb.dptr<T>();
  auto val = [](const T& v) { return static_cast<double>(static_cast<AccType<T>>(v)); };
  const int64_t xstep = g.s[2] * xs.sp;
  std::vector<double> acc(static_cast<size_t>(cg.n * cg.o * osz), 0.0);
#pragma omp parallel for
  for (int64_t no = 0; no < cg.n * cg.o; ++no) {
    const int64_t n = no / cg.o, o = no % cg.o, grp = o / opg;
    double* out = &acc[no * osz];
    for (int64_t ci = 0; ci < cpg; ++ci) {
      const T* xc = x + xs.at(n, grp * cpg + ci, 0);
      ForEachTapRun(g, [&](int64_t oi, int64_t ki, int64_t ii, int64_t count) {
        const double wv = val(w[ws.at(o, ci, ki)]);
        const T* xp = xc + ii * xs.sp;
        for (int64_t t = 0; t < count; ++t) out[oi + t] += val(xp[t * xstep]) * wv;
      });
    }
    if (b)
      for (int64_t i = 0; i < osz; ++i) out[i] += val(b[o]);
  }
  Accumulate(yb.dptr<T>(), ys, cg.o, osz, acc, req);
}

/*! \brief dy, x, w, dx, dw: channels-first views (any storage order); db plain. */
template <typename T>
void Backward(const ConvGeometry& cg, const TBlob& dyb, const TBlob& xb, const TBlob& wb,
              const TBlob& dxb, const TBlob& dwb, T* db, const std::vector<OpReqType>& req) {
  const Geo3 g(cg);
  const int64_t cpg = cg.c / cg.groups, opg = cg.o / cg.groups;
  const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.k_size();
  const Strides xs = StridesOf(xb, isz), ws = StridesOf(wb, ksz), ys = StridesOf(dyb, osz);
  const T* dy = dyb.dptr<T>();
  const T* x = xb.dptr<T>();
  const T* w = wb.dptr<T>();
  auto val = [](const T& v) { return static_cast<double>(static_cast<AccType<T>>(v)); };
  const int64_t xstep = g.s[2] * xs.sp;
  std::vector<double> gx(static_cast<size_t>(cg.n * cg.c * isz), 0.0);
  std::vector<double> gw(static_cast<size_t>(cg.o * cpg * ksz), 0.0);
  std::vector<double> gb(static_cast<size_t>(cg.o), 0.0);
  // each half runs only when requested: Deconvolution uses this for dx alone (its forward) and
  // for dw alone (its weight gradient), with the unused blobs' data never read
  const bool want_x = req[0] != kNullOp;
  const bool want_w = req[1] != kNullOp || (db != nullptr && req[2] != kNullOp);
  // dx: parallel over (n, c) so that each thread owns its output rows
#pragma omp parallel for if (want_x)
  for (int64_t nc = 0; nc < (want_x ? cg.n * cg.c : 0); ++nc) {
    const int64_t n = nc / cg.c, c = nc % cg.c, grp = c / cpg, ci = c % cpg;
    double* gxc = &gx[nc * isz];
    for (int64_t oo = 0; oo < opg; ++oo) {
      const int64_t o = grp * opg + oo;
      const T* dyo = dy + ys.at(n, o, 0);
      ForEachTapRun(g, [&](int64_t oi, int64_t ki, int64_t ii, int64_t count) {
        const double wv = val(w[ws.at(o, ci, ki)]);
        const T* dyp = dyo + oi * ys.sp;
        double* gxp = gxc + ii;
        for (int64_t t = 0; t < count; ++t) gxp[t * g.s[2]] += val(dyp[t * ys.sp]) * wv;
      });
    }
  }
  // dw, db: parallel over output channels
#pragma omp parallel for if (want_w)
  for (int64_t o = 0; o < (want_w ? cg.o : 0); ++o) {
    const int64_t grp = o / opg;
    for (int64_t n = 0; n < cg.n; ++n) {
      for (int64_t i = 0; i < osz; ++i) gb[o] += val(dy[ys.at(n, o, i)]);
      const T* dyo = dy + ys.at(n, o, 0);
      for (int64_t ci = 0; ci < cpg; ++ci) {
        double* gwc = &gw[(o * cpg + ci) * ksz];
        const T* xc = x + xs.at(n, grp * cpg + ci, 0);
        ForEachTapRun(g, [&](int64_t oi, int64_t ki, int64_t ii, int64_t count) {
          const T* dyp = dyo + oi * ys.sp;
          const T* xp = xc + ii * xs.sp;
          double sum = 0.0;
          for (int64_t t = 0; t < count; ++t) sum += val(dyp[t * ys.sp]) * val(xp[t * xstep]);
          gwc[ki] += sum;
        });
      }
    }
  }
  Accumulate(dxb.dptr<T>(), StridesOf(dxb, isz), cg.c, isz, gx, req[0]);
  Accumulate(dwb.dptr<T>(), StridesOf(dwb, ksz), cpg, ksz, gw, req[1]);
  if (db) Accumulate(db, Strides{1, 0, 0}, 1, 1, gb, req[2]);
}

}  // namespace

void ConvForwardRef(const ConvGeometry& g, const TBlob& x, const TBlob& w, const TBlob* b,
                    const TBlob& y, OpReqType req) {
  SYMNET_CHECK(!x.blocked() && !y.blocked()) << "reference convolution takes no blocked layout";
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T,
                           { Forward<T>(g, x, w, b ? b->dptr<T>() : nullptr, y, req); });
}

void ConvBackwardRef(const ConvGeometry& g, const TBlob& dy, const TBlob& x, const TBlob& w,
                     const TBlob& dx, const TBlob& dw, const TBlob* db,
                     const std::vector<OpReqType>& req) {
  SYMNET_CHECK(!x.blocked() && !dy.blocked()) << "reference convolution takes no blocked layout";
  SYMNET_FLOAT_TYPE_SWITCH(
      x.dtype_, T, { Backward<T>(g, dy, x, w, dx, dw, db ? db->dptr<T>() : nullptr, req); });
}

}  // namespace ops
}  // namespace symnet
