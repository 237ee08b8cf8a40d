/*! \brief Pooling's parameter, geometry and windows (shared by the CPU and GPU kernels). */
#ifndef SYMNET_OPERATORS_NN_POOLING_H_
#define SYMNET_OPERATORS_NN_POOLING_H_

#include <algorithm>

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
        .describe("Output size: valid floors (in + 2*pad - kernel) / stride, full ceils it.");
    DMLC_DECLARE_FIELD(stride).set_default(Shape()).describe("Stride; default 1.");
    DMLC_DECLARE_FIELD(pad).set_default(Shape()).describe("Padding; default 0.");
    DMLC_DECLARE_FIELD(p_value).set_default(dmlc::optional<int>()).describe("For lp pooling.");
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
  SYMNET_CHECK(p.pool_type != kLpPool) << "lp pooling is not supported";
  SYMNET_CHECK(p.pooling_convention != kSame) << "pooling_convention 'same' is not supported";
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
    SYMNET_CHECK(g.k[i] > 0 && g.s[i] > 0 && g.p[i] >= 0 && g.in[i] + 2 * g.p[i] >= g.k[i])
        << "Pooling window " << p.kernel << " does not fit the padded input " << x;
    const int64_t span = g.in[i] + 2 * g.p[i] - g.k[i];
    g.out[i] = (p.pooling_convention == kFull ? (span + g.s[i] - 1) / g.s[i] : span / g.s[i]) + 1;
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
  w.divisor = pool_type == kSumPool ? 1.0 : (include_pad ? padded : real);
  return w;
}

inline bool IncludePad(const PoolingParam& p) {
  return !p.count_include_pad.has_value() || p.count_include_pad.value();
}

inline Window MakeWindow(const PoolGeo& g, const PoolingParam& p, const int64_t o[3]) {
  return MakeWindow(g, p.pool_type, IncludePad(p), o);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_POOLING_H_
