/*!
 * \brief Plain-loop convolution (forward, backward) for any float dtype; each operand may be
 *  stored channels-first or channels-last (addressed through strides).
 */
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
 * \brief Visits every (output position, kernel tap, input position) triple of one channel pair:
 *  f(out_index, kernel_index, in_index).
 */
template <typename F>
inline void ForEachTap(const Geo3& g, F f) {
  for (int64_t od = 0; od < g.out[0]; ++od)
    for (int64_t oh = 0; oh < g.out[1]; ++oh)
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        const int64_t oi = (od * g.out[1] + oh) * g.out[2] + ow;
        for (int64_t kd = 0; kd < g.k[0]; ++kd) {
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
          if (id < 0 || id >= g.in[0]) continue;
          for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
              const int64_t iw = ow * g.s[2] - g.p[2] + kw * g.d[2];
              if (iw < 0 || iw >= g.in[2]) continue;
              f(oi, (kd * g.k[1] + kh) * g.k[2] + kw, (id * g.in[1] + ih) * g.in[2] + iw);
            }
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
  std::vector<double> acc(static_cast<size_t>(cg.n * cg.o * osz), 0.0);
#pragma omp parallel for
  for (int64_t no = 0; no < cg.n * cg.o; ++no) {
    const int64_t n = no / cg.o, o = no % cg.o, grp = o / opg;
    double* out = &acc[no * osz];
    for (int64_t ci = 0; ci < cpg; ++ci) {
      const int64_t c = grp * cpg + ci;
      ForEachTap(g, [&](int64_t oi, int64_t ki, int64_t ii) {
        out[oi] += val(x[xs.at(n, c, ii)]) * val(w[ws.at(o, ci, ki)]);
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
      ForEachTap(g, [&](int64_t oi, int64_t ki, int64_t ii) {
        gxc[ii] += val(dy[ys.at(n, o, oi)]) * val(w[ws.at(o, ci, ki)]);
      });
    }
  }
  // dw, db: parallel over output channels
#pragma omp parallel for if (want_w)
  for (int64_t o = 0; o < (want_w ? cg.o : 0); ++o) {
    const int64_t grp = o / opg;
    for (int64_t n = 0; n < cg.n; ++n) {
      for (int64_t i = 0; i < osz; ++i) gb[o] += val(dy[ys.at(n, o, i)]);
      for (int64_t ci = 0; ci < cpg; ++ci) {
        double* gwc = &gw[(o * cpg + ci) * ksz];
        ForEachTap(g, [&](int64_t oi, int64_t ki, int64_t ii) {
          gwc[ki] += val(dy[ys.at(n, o, oi)]) * val(x[xs.at(n, grp * cpg + ci, ii)]);
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
