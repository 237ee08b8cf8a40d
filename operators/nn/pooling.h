/*! \brief Pooling's parameter, geometry and windows (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_NN_POOLING_H_
#define SYMNET_OPERATORS_NN_POOLING_H_

#include <algorithm>
#include <cmath>
#include <string>

#include "../operator_common.h"
#include "data_layout.h"

namespace symnet {
namespace ops {

enum PoolType { kMaxPool, kAvgPool, kSumPool, kLpPool };
enum PoolConvention { kValid, kFull, kSame };

struct PoolingParam : public dmlc::Parameter<PoolingParam> {
  Shape kernel, stride, pad;
  int pool_type;
  int pooling_convention;
  bool global_pool;
  bool cudnn_off;
  dmlc::optional<int> p_value;
  dmlc::optional<bool> count_include_pad;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(PoolingParam) {
    DMLC_DECLARE_FIELD(kernel).set_default(Shape()).describe(
        "Pooling window (ignored with global_pool).");
    DMLC_DECLARE_FIELD(pool_type)
        .add_enum("max", kMaxPool)
        .add_enum("avg", kAvgPool)
        .add_enum("sum", kSumPool)
        .add_enum("lp", kLpPool)
        .set_default(kMaxPool)
        .describe("Pooling type.");
    DMLC_DECLARE_FIELD(global_pool).set_default(false).describe("Pool over all spatial positions.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Accepted for MXNet compatibility.");
    DMLC_DECLARE_FIELD(pooling_convention)
        .add_enum("valid", kValid)
        .add_enum("full", kFull)
        .add_enum("same", kSame)
        .set_default(kValid)
        .describe(
            "Output size: valid floors (in + 2*pad - kernel) / stride, full ceils it; same is "
            "ceil(in / stride), windows cut at the end, no pad.");
    DMLC_DECLARE_FIELD(stride).set_default(Shape()).describe("Stride; default 1.");
    DMLC_DECLARE_FIELD(pad).set_default(Shape()).describe("Padding; default 0.");
    DMLC_DECLARE_FIELD(p_value)
        .set_default(dmlc::optional<int>())
        .describe("lp pooling's p: 1, 2 or 3.");
    DMLC_DECLARE_FIELD(count_include_pad)
        .set_default(dmlc::optional<bool>())
        .describe("avg pooling: count padded positions in the divisor (default True).");
    DeclareDataLayout(DMLC_DECLARE_FIELD(layout))
        .describe(
            "Data layout: channels-first NCW/NCHW/NCDHW (the default) or channels-last "
            "NWC/NHWC/NDHWC.");
  }
};
/*! \brief Pooling geometry padded to 3 spatial dims (d, h, w). */
struct PoolGeo {
  int64_t n, c;
  int64_t in[3], out[3], k[3], s[3], p[3];
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
};

/*! \brief x: the data's channels-first shape (N, C, spatial...), whatever p.layout says. */
inline PoolGeo MakeGeo(const PoolingParam& p, const Shape& x) {
  const int nsp = x.ndim() - 2;
  SYMNET_CHECK(nsp >= 1 && nsp <= 3)
      << "Pooling expects "
      << (IsChannelsLast(p.layout) ? "(N, spatial..., C)" : "(N, C, spatial...)")
      << " with 1 to 3 spatial dims, got " << (IsChannelsLast(p.layout) ? ToChannelsLast(x) : x);
  SYMNET_CHECK(!p.layout.has_value() || LayoutSpatialDims(p.layout) == nsp)
      << "Pooling layout " << LayoutName(p.layout.value()) << " does not fit data with " << nsp
      << " spatial dims";
  if (p.pool_type == kLpPool)
    SYMNET_CHECK(p.p_value.has_value() && p.p_value.value() >= 1 && p.p_value.value() <= 3)
        << "Pooling with pool_type 'lp' needs p_value 1, 2 or 3 (as MXNet), got "
        << (p.p_value.has_value() ? std::to_string(p.p_value.value()) : std::string("none"));
  const bool same = p.pooling_convention == kSame && !p.global_pool;
  // 'same' places windows at multiples of the stride from 0 and cuts them at the end, so there
  // is no room for explicit padding (MXNet refuses it too)
  if (same)
    for (int j = 0; j < p.pad.ndim(); ++j)
      SYMNET_CHECK(!p.pad.ndim_known() || p.pad[j] == 0)
          << "Pooling with pooling_convention 'same' takes no pad, got pad " << p.pad;
  if (!p.global_pool) {
    SYMNET_CHECK_EQ(p.kernel.ndim(), nsp)
        << "Pooling kernel " << p.kernel << " must have one dim per spatial dim of " << x;
    // found by fuzz_symbol_json: stride "(22, )" on 2-D data read past the end of the shape
    for (const auto* t : {&p.stride, &p.pad})
      SYMNET_CHECK(!t->ndim_known() || t->ndim() == 0 || t->ndim() == nsp)
          << "Pooling " << (t == &p.stride ? "stride " : "pad ") << *t
          << " must have one dim per spatial dim of " << x << " (or be left out)";
  }
  PoolGeo g;
  g.n = x[0];
  g.c = x[1];
  const int off = 3 - nsp;
  for (int i = 0; i < 3; ++i) {
    const int j = i - off;
    const bool real = j >= 0;
    g.in[i] = real ? x[2 + j] : 1;
    if (!real) {
      g.k[i] = g.s[i] = 1;
      g.p[i] = 0;
    } else if (p.global_pool) {
      g.k[i] = g.in[i];
      g.s[i] = 1;
      g.p[i] = 0;
    } else {
      g.k[i] = p.kernel[j];
      g.s[i] = p.stride.ndim_known() && p.stride.ndim() > 0 ? p.stride[j] : 1;
      g.p[i] = p.pad.ndim_known() && p.pad.ndim() > 0 ? p.pad[j] : 0;
    }
    SYMNET_CHECK(g.k[i] > 0 && g.s[i] > 0 && g.p[i] >= 0 &&
                 (same || g.in[i] + 2 * g.p[i] >= g.k[i]))
        << "Pooling window " << p.kernel << " does not fit the padded input " << x;
    const int64_t span = g.in[i] + 2 * g.p[i] - g.k[i];
    if (same) {
      g.out[i] = (g.in[i] + g.s[i] - 1) / g.s[i];  // ceil(in / stride)
    } else {
      g.out[i] = (p.pooling_convention == kFull ? (span + g.s[i] - 1) / g.s[i] : span / g.s[i]) + 1;
    }
  }
  return g;
}

/*! \brief The blobs as channels-first views (data_layout.h) under p.layout. */
inline std::vector<TBlob> PoolViews(const PoolingParam& p, std::vector<TBlob> blobs) {
  for (auto& b : blobs) b = ChannelsFirstView(b, IsChannelsLast(p.layout));
  return blobs;
}

/*! \brief One output window: the input range per dim and the divisor for avg pooling. */
struct Window {
  int64_t lo[3], hi[3];
  double divisor;
};

/*! \brief The window of output position o (d, h, w); include_pad: count_include_pad. */
SYMNET_XINLINE Window MakeWindow(const PoolGeo& g, int pool_type, bool include_pad,
                                 const int64_t o[3]) {
  Window w;
  double padded = 1, real = 1;
  for (int i = 0; i < 3; ++i) {
    const int64_t start = o[i] * g.s[i] - g.p[i];
    const int64_t end = start + g.k[i] < g.in[i] + g.p[i] ? start + g.k[i] : g.in[i] + g.p[i];
    padded *= static_cast<double>(end - start);
    w.lo[i] = start > 0 ? start : 0;
    w.hi[i] = end < g.in[i] ? end : g.in[i];
    real *= static_cast<double>(w.hi[i] > w.lo[i] ? w.hi[i] - w.lo[i] : 0);
  }
  w.divisor = pool_type == kSumPool || pool_type == kLpPool ? 1.0 : (include_pad ? padded : real);
  return w;
}

/*! \brief lp pooling (MXNet's): y = (sum x^p)^(1/p) over the window, without absolute values
 *  (so p = 1 and 3 keep signs: p = 1 is sum pooling and p = 3 takes a signed cube root). */
SYMNET_XINLINE double LpTerm(double x, int p) { return p == 1 ? x : p == 2 ? x * x : x * x * x; }
SYMNET_XINLINE double LpRoot(double s, int p) { return p == 1 ? s : p == 2 ? sqrt(s) : cbrt(s); }
/*! \brief dy/dx of one window element: (x / y)^(p - 1); 0 where y is 0 (MXNet's choice, which
 *  keeps an all-zero window's gradient finite). */
SYMNET_XINLINE double LpGrad(double x, double y, int p) {
  if (p == 1) return 1.0;
  if (y == 0) return 0.0;
  return p == 2 ? x / y : (x * x) / (y * y);
}
inline int LpP(const PoolingParam& p) { return p.p_value.has_value() ? p.p_value.value() : 1; }

inline bool IncludePad(const PoolingParam& p) {
  return !p.count_include_pad.has_value() || p.count_include_pad.value();
}

inline Window MakeWindow(const PoolGeo& g, const PoolingParam& p, const int64_t o[3]) {
  return MakeWindow(g, p.pool_type, IncludePad(p), o);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_POOLING_H_
