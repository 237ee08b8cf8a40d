/*! \brief Plain-loop convolution (forward, backward) for any float dtype, channels-first. */
#include <cstring>

#include "../kernel_launch.h"
#include "convolution.h"

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

template <typename T>
void Accumulate(T* dst, const std::vector<double>& src, OpReqType req) {
  for (size_t i = 0; i < src.size(); ++i) {
    if (req == kAddTo) {
      AssignReq<kAddTo>(&dst[i], static_cast<AccType<T>>(src[i]));
    } else if (req != kNullOp) {
      AssignReq<kWriteTo>(&dst[i], static_cast<AccType<T>>(src[i]));
    }
  }
}

template <typename T>
void Forward(const ConvGeometry& cg, const T* x, const T* w, const T* b, T* y, OpReqType req) {
  const Geo3 g(cg);
  const int64_t cpg = cg.c / cg.groups, opg = cg.o / cg.groups;
  const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.k_size();
  std::vector<double> acc(static_cast<size_t>(cg.n * cg.o * osz), 0.0);
#pragma omp parallel for
  for (int64_t no = 0; no < cg.n * cg.o; ++no) {
    const int64_t n = no / cg.o, o = no % cg.o, grp = o / opg;
    double* out = &acc[no * osz];
    for (int64_t ci = 0; ci < cpg; ++ci) {
      const int64_t c = grp * cpg + ci;
      const T* xc = x + (n * cg.c + c) * isz;
      const T* wc = w + (o * cpg + ci) * ksz;
      ForEachTap(g, [&](int64_t oi, int64_t ki, int64_t ii) {
        out[oi] += static_cast<double>(static_cast<AccType<T>>(xc[ii])) *
                   static_cast<double>(static_cast<AccType<T>>(wc[ki]));
      });
    }
    if (b)
      for (int64_t i = 0; i < osz; ++i) out[i] += static_cast<double>(static_cast<AccType<T>>(b[o]));
  }
  Accumulate(y, acc, req);
}

template <typename T>
void Backward(const ConvGeometry& cg, const T* dy, const T* x, const T* w, T* dx, T* dw, T* db,
              const std::vector<OpReqType>& req) {
  const Geo3 g(cg);
  const int64_t cpg = cg.c / cg.groups, opg = cg.o / cg.groups;
  const int64_t isz = g.in_size(), osz = g.out_size(), ksz = g.k_size();
  auto val = [](const T& v) { return static_cast<double>(static_cast<AccType<T>>(v)); };
  std::vector<double> gx(static_cast<size_t>(cg.n * cg.c * isz), 0.0);
  std::vector<double> gw(static_cast<size_t>(cg.o * cpg * ksz), 0.0);
  std::vector<double> gb(static_cast<size_t>(cg.o), 0.0);
  // dx: parallel over (n, c) so that each thread owns its output rows
#pragma omp parallel for
  for (int64_t nc = 0; nc < cg.n * cg.c; ++nc) {
    const int64_t n = nc / cg.c, c = nc % cg.c, grp = c / cpg, ci = c % cpg;
    double* gxc = &gx[nc * isz];
    for (int64_t oo = 0; oo < opg; ++oo) {
      const int64_t o = grp * opg + oo;
      const T* dyo = dy + (n * cg.o + o) * osz;
      const T* wc = w + (o * cpg + ci) * ksz;
      ForEachTap(g, [&](int64_t oi, int64_t ki, int64_t ii) { gxc[ii] += val(dyo[oi]) * val(wc[ki]); });
    }
  }
  // dw, db: parallel over output channels
#pragma omp parallel for
  for (int64_t o = 0; o < cg.o; ++o) {
    const int64_t grp = o / opg;
    for (int64_t n = 0; n < cg.n; ++n) {
      const T* dyo = dy + (n * cg.o + o) * osz;
      for (int64_t i = 0; i < osz; ++i) gb[o] += val(dyo[i]);
      for (int64_t ci = 0; ci < cpg; ++ci) {
        const T* xc = x + (n * cg.c + grp * cpg + ci) * isz;
        double* gwc = &gw[(o * cpg + ci) * ksz];
        ForEachTap(g, [&](int64_t oi, int64_t ki, int64_t ii) { gwc[ki] += val(dyo[oi]) * val(xc[ii]); });
      }
    }
  }
  Accumulate(dx, gx, req[0]);
  Accumulate(dw, gw, req[1]);
  if (db) Accumulate(db, gb, req[2]);
}

}  // namespace

void ConvForwardRef(const ConvGeometry& g, const TBlob& x, const TBlob& w, const TBlob* b,
                    const TBlob& y, OpReqType req) {
  SYMNET_CHECK(!x.channels_last() && !y.channels_last()) << "reference convolution is channels-first";
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    Forward<T>(g, x.dptr<T>(), w.dptr<T>(), b ? b->dptr<T>() : nullptr, y.dptr<T>(), req);
  });
}

void ConvBackwardRef(const ConvGeometry& g, const TBlob& dy, const TBlob& x, const TBlob& w,
                     const TBlob& dx, const TBlob& dw, const TBlob* db,
                     const std::vector<OpReqType>& req) {
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    Backward<T>(g, dy.dptr<T>(), x.dptr<T>(), w.dptr<T>(), dx.dptr<T>(), dw.dptr<T>(),
                db ? db->dptr<T>() : nullptr, req);
  });
}

}  // namespace ops
}  // namespace symnet
