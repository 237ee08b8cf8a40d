/*! \brief 8-bit resize, affine warp, pad and crop (see image_resample.h). */
// OpenCV (SSE2) computes the float expressions here as separate multiplies and adds: a fused
// multiply-add, with its single rounding, would move some pixels by 1
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "image_resample.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "jpeg_codec.h"
#include "symnet/base.h"

namespace symnet {
namespace io {

Mat8::Mat8(int r, int c, int ch) : rows(r), cols(c), channels(ch) {
  SYMNET_CHECK(r > 0 && c > 0 && ch > 0)
      << "an image needs a positive size, not " << r << " x " << c << " x " << ch;
  SYMNET_CHECK(static_cast<int64_t>(r) * c <= MaxImagePixels())
      << "an image of " << c << " x " << r << " pixels exceeds the limit of " << MaxImagePixels()
      << " pixels (SYMNET_MAX_IMAGE_PIXELS)";
  data.assign(static_cast<size_t>(r) * c * ch, 0);
}

namespace {

// Resize weights are fixed point with 11 fraction bits; a vertical blend of two horizontal
// sums therefore carries 22 (OpenCV's INTER_RESIZE_COEF_BITS).
constexpr int kResizeBits = 11;
constexpr int kResizeOne = 1 << kResizeBits;
// warpAffine: positions with 10 fraction bits, sampled at 1/32 pixel, weights with 15 bits
constexpr int kPosBits = 10;
constexpr int kTabBits = 5;
constexpr int kTabSize = 1 << kTabBits;
constexpr int kRemapBits = 15;
constexpr int kRemapOne = 1 << kRemapBits;

/*! \brief Round to nearest, ties to even (the FPU's mode, as cvRound rounds). */
inline int RoundEven(double v) { return static_cast<int>(std::nearbyint(v)); }
inline int RoundEven(float v) { return static_cast<int>(std::nearbyintf(v)); }
inline int Floor(double v) { return static_cast<int>(std::floor(v)); }
inline uint8_t Sat8(int v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }
inline uint8_t Sat8(float v) {
  // large values first: a float beyond int's range must not overflow the conversion
  return v >= 255.f ? uint8_t{255} : (v <= 0.f ? uint8_t{0} : Sat8(RoundEven(v)));
}
inline int16_t SatShort(float v) {
  return static_cast<int16_t>(std::clamp(RoundEven(v), -32768, 32767));
}
inline int Clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/*! \brief The bicubic kernel (a = -0.75) at the 4 taps around a sample at fraction x. */
void CubicWeights(float x, float* w) {
  const float a = -0.75f;
  w[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  w[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  w[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  w[3] = 1.f - w[0] - w[1] - w[2];
}

/*!
 * \brief The Lanczos kernel of radius 4 at the 8 taps around a sample at fraction x, summing to
 *  1. Tap i sits at distance d = x + 3 - i, weight sinc(d) sinc(d / 4). With y = -d pi / 4 the
 *  weight is proportional to (-1)^i sin(y0 + i pi / 4) / y^2 (y0 = -(x + 3) pi / 4; sin(pi d)
 *  only alternates in sign), evaluated from sin(y0) and cos(y0) and the sines and cosines of
 *  i pi / 4, in double, as OpenCV does.
 */
void LanczosWeights(float x, float* w) {
  if (x < FLT_EPSILON) {  // on a pixel: that pixel alone
    for (int i = 0; i < 8; ++i) w[i] = 0;
    w[3] = 1;
    return;
  }
  const double pi = 3.14159265358979323846, r = 0.70710678118654752440;
  // (-1)^i (cos(i pi / 4), sin(i pi / 4))
  static const double rot[8][2] = {{1, 0},  {-r, -r}, {0, 1},  {r, -r},
                                   {-1, 0}, {r, r},   {0, -1}, {-r, r}};
  const double y0 = -(x + 3) * pi * 0.25, s0 = std::sin(y0), c0 = std::cos(y0);
  float sum = 0;
  for (int i = 0; i < 8; ++i) {
    const double y = -(x + 3 - i) * pi * 0.25;
    w[i] = static_cast<float>((rot[i][0] * s0 + rot[i][1] * c0) / (y * y));
    sum += w[i];
  }
  const float inv = 1.f / sum;
  for (int i = 0; i < 8; ++i) w[i] *= inv;
}

/*! \brief The taps' weights at fraction f for a separable method (bilinear-like: 2 taps). */
void TapWeights(int interp, float f, float* w) {
  if (interp == kInterCubic) {
    CubicWeights(f, w);
  } else if (interp == kInterLanczos4) {
    LanczosWeights(f, w);
  } else {
    w[0] = 1.f - f;
    w[1] = f;
  }
}

int KernelSize(int interp) {
  return interp == kInterCubic ? 4 : (interp == kInterLanczos4 ? 8 : 2);
}

/*! \brief Per output index along one axis: the first source tap (later ones follow; each is
 *  clamped to the axis) and the taps' fixed-point weights. */
struct AxisTaps {
  int ksize = 2;
  std::vector<int> first;
  std::vector<int16_t> weight;
};

/*!
 * \brief cv::resize's sampling along an axis of n_in -> n_out. scale is n_in / n_out as OpenCV
 *  computes it (1 / (n_out / n_in)). Bilinear samples at (i + 0.5) * scale - 0.5; with
 *  `pin_edges` (OpenCV's columns, not its rows) a sample outside the first and last pixel centre
 *  takes the edge pixel alone, else its weights stay and the taps repeat the edge pixel. The
 *  area mode (INTER_AREA when the image grows) takes the pixel under the output pixel's start,
 *  blended with the next one only over the part of the output pixel past that pixel's edge.
 */
AxisTaps MakeAxisTaps(int n_in, int n_out, double scale, int interp, bool area_mode,
                      bool pin_edges) {
  const double inv_scale = static_cast<double>(n_out) / n_in;
  AxisTaps t;
  t.ksize = KernelSize(interp);
  const int half = t.ksize / 2;
  const bool linear_like = t.ksize == 2;
  t.first.resize(n_out);
  t.weight.resize(static_cast<size_t>(n_out) * t.ksize);
  for (int i = 0; i < n_out; ++i) {
    float f;
    int s;
    if (area_mode) {
      s = Floor(i * scale);
      f = static_cast<float>((i + 1) - (s + 1) * inv_scale);
      f = f <= 0 ? 0.f : f - static_cast<float>(std::floor(f));
    } else {
      f = static_cast<float>((i + 0.5) * scale - 0.5);
      s = Floor(f);
      f -= static_cast<float>(s);
    }
    if (pin_edges && linear_like && s < 0) f = 0, s = 0;
    if (pin_edges && linear_like && s >= n_in - 1) f = 0, s = n_in - 1;
    float w[8];
    TapWeights(interp, f, w);
    t.first[i] = s - half + 1;
    for (int k = 0; k < t.ksize; ++k)
      t.weight[static_cast<size_t>(i) * t.ksize + k] = SatShort(w[k] * kResizeOne);
  }
  return t;
}

Mat8 ResizeNearest(const Mat8& src, int rows, int cols, double sy, double sx) {
  Mat8 dst(rows, cols, src.channels);
  const int cn = src.channels;
  std::vector<int> xs(cols);
  for (int x = 0; x < cols; ++x) xs[x] = std::min(Floor(x * sx), src.cols - 1);
  for (int y = 0; y < rows; ++y) {
    const uint8_t* s = src.row(std::min(Floor(y * sy), src.rows - 1));
    uint8_t* d = dst.row(y);
    for (int x = 0; x < cols; ++x) std::memcpy(d + x * cn, s + xs[x] * cn, cn);
  }
  return dst;
}

/*! \brief Shrinking by whole factors kx, ky: the mean of each block (2x2 rounds half up, as
 *  OpenCV's vectorised path; other factors to nearest even). */
Mat8 ResizeAreaFast(const Mat8& src, int rows, int cols, int kx, int ky) {
  Mat8 dst(rows, cols, src.channels);
  const int cn = src.channels;
  const float inv = 1.f / static_cast<float>(kx * ky);
  for (int y = 0; y < rows; ++y) {
    uint8_t* d = dst.row(y);
    for (int x = 0; x < cols; ++x)
      for (int c = 0; c < cn; ++c) {
        int sum = 0;
        for (int j = 0; j < ky; ++j) {
          const uint8_t* s = src.row(y * ky + j) + (x * kx) * cn + c;
          for (int i = 0; i < kx; ++i) sum += s[i * cn];
        }
        d[x * cn + c] = kx == 2 && ky == 2 ? static_cast<uint8_t>((sum + 2) >> 2)
                                           : Sat8(static_cast<float>(sum) * inv);
      }
  }
  return dst;
}

/*! \brief One output pixel's share of input pixels along an axis when shrinking by `scale`:
 *  the input span [i * scale, (i + 1) * scale) cut at pixel edges, each piece weighted by its
 *  length over the span (the last span may be cut short by the image's end). */
struct AreaTap {
  int out, in;
  float w;
};

std::vector<AreaTap> AreaTaps(int n_in, int n_out, double scale) {
  std::vector<AreaTap> taps;
  for (int i = 0; i < n_out; ++i) {
    const double start = i * scale, end = start + scale;
    const double span = std::min(scale, n_in - start);
    int full_end = Floor(end);
    int full_begin = static_cast<int>(std::ceil(start));
    full_end = std::min(full_end, n_in - 1);
    full_begin = std::min(full_begin, full_end);
    if (full_begin - start > 1e-3)
      taps.push_back({i, full_begin - 1, static_cast<float>((full_begin - start) / span)});
    for (int s = full_begin; s < full_end; ++s)
      taps.push_back({i, s, static_cast<float>(1.0 / span)});
    if (end - full_end > 1e-3)
      taps.push_back(
          {i, full_end, static_cast<float>(std::min(std::min(end - full_end, 1.0), span) / span)});
  }
  return taps;
}

Mat8 ResizeAreaGeneral(const Mat8& src, int rows, int cols, double sy, double sx) {
  Mat8 dst(rows, cols, src.channels);
  const int cn = src.channels, width = cols * cn;
  const std::vector<AreaTap> xt = AreaTaps(src.cols, cols, sx), yt = AreaTaps(src.rows, rows, sy);
  std::vector<float> buf(width), sum(width, 0.f);
  int current = yt.empty() ? 0 : yt[0].out;
  auto flush = [&](int y) {
    uint8_t* d = dst.row(y);
    for (int i = 0; i < width; ++i) d[i] = Sat8(sum[i]);
  };
  for (const AreaTap& ty : yt) {
    const uint8_t* s = src.row(ty.in);
    std::fill(buf.begin(), buf.end(), 0.f);
    for (const AreaTap& tx : xt)
      for (int c = 0; c < cn; ++c) buf[tx.out * cn + c] += s[tx.in * cn + c] * tx.w;
    if (ty.out != current) {
      flush(current);
      for (int i = 0; i < width; ++i) sum[i] = ty.w * buf[i];
      current = ty.out;
    } else {
      for (int i = 0; i < width; ++i) sum[i] += ty.w * buf[i];
    }
  }
  flush(current);
  return dst;
}

}  // namespace

Mat8 ResizeMat(const Mat8& src, int rows, int cols, int interp) {
  SYMNET_CHECK(!src.empty()) << "resize: the image is empty";
  SYMNET_CHECK(rows > 0 && cols > 0) << "resize: the output size must be positive, not " << cols
                                     << " x " << rows << " (width x height)";
  SYMNET_CHECK(interp >= kInterNearest && interp <= kInterLanczos4)
      << "resize: unknown interpolation " << interp;
  if (rows == src.rows && cols == src.cols) return src;
  const double sx = 1.0 / (static_cast<double>(cols) / src.cols);
  const double sy = 1.0 / (static_cast<double>(rows) / src.rows);
  if (interp == kInterNearest) return ResizeNearest(src, rows, cols, sy, sx);
  const int kx = RoundEven(sx), ky = RoundEven(sy);
  const bool whole = std::abs(sx - kx) < DBL_EPSILON && std::abs(sy - ky) < DBL_EPSILON;
  // OpenCV halves an image with bilinear weights through its area code (the same means)
  if (interp == kInterLinear && whole && kx == 2 && ky == 2) interp = kInterArea;
  if (interp == kInterArea && sx >= 1 && sy >= 1)
    return whole ? ResizeAreaFast(src, rows, cols, kx, ky)
                 : ResizeAreaGeneral(src, rows, cols, sy, sx);
  const bool area_mode = interp == kInterArea;
  // columns are pinned to the edge pixels; rows keep their weights and repeat the edge row
  const AxisTaps tx = MakeAxisTaps(src.cols, cols, sx, interp, area_mode, true);
  const AxisTaps ty = MakeAxisTaps(src.rows, rows, sy, interp, area_mode, false);
  const int cn = src.channels, width = cols * cn, ks = tx.ksize;
  // horizontal pass, row by row as the output rows need them (they move down monotonically):
  // fixed-point sums, weights scaled by 2^11, kept for the last ks source rows
  std::vector<int32_t> cache(static_cast<size_t>(ks) * width);
  std::vector<int> cached(ks, -1);
  auto horizontal = [&](int y) -> const int32_t* {
    int32_t* o = &cache[static_cast<size_t>(y % ks) * width];
    if (cached[y % ks] == y) return o;
    cached[y % ks] = y;
    const uint8_t* s = src.row(y);
    for (int x = 0; x < cols; ++x) {
      const int16_t* w = &tx.weight[static_cast<size_t>(x) * ks];
      for (int c = 0; c < cn; ++c) {
        int32_t acc = 0;
        for (int k = 0; k < ks; ++k)
          acc += s[Clamp(tx.first[x] + k, 0, src.cols - 1) * cn + c] * w[k];
        o[x * cn + c] = acc;
      }
    }
    return o;
  };
  Mat8 dst(rows, cols, cn);
  for (int y = 0; y < rows; ++y) {
    const int16_t* b = &ty.weight[static_cast<size_t>(y) * ks];
    // the ks rows of an output row are consecutive source rows (clamped at the edges), so each
    // has its own slot of the cache
    const int32_t* r[8];
    for (int k = 0; k < ks; ++k) r[k] = horizontal(Clamp(ty.first[y] + k, 0, src.rows - 1));
    uint8_t* d = dst.row(y);
    int i = 0;
    if (ks == 2) {
      // OpenCV's blend of two rows for uint8 (its SSE2 path, and the scalar code for the rest
      // copies it): 4 bits of each sum dropped, the top 16 bits of each product kept
      for (; i < width; ++i) {
        const int v = (((r[0][i] >> 4) * b[0]) >> 16) + (((r[1][i] >> 4) * b[1]) >> 16);
        d[i] = Sat8((v + 2) >> 2);
      }
    } else if (ks == 4) {
      // runs of 8 in float (rounded to nearest even), the tail in fixed point
      const float unit = 1.f / (static_cast<float>(kResizeOne) * kResizeOne);
      const float f0 = b[0] * unit, f1 = b[1] * unit, f2 = b[2] * unit, f3 = b[3] * unit;
      for (; i + 8 <= width; i += 8)
        for (int j = i; j < i + 8; ++j) {
          const float v = ((static_cast<float>(r[0][j]) * f0 + static_cast<float>(r[1][j]) * f1) +
                           static_cast<float>(r[2][j]) * f2) +
                          static_cast<float>(r[3][j]) * f3;
          d[j] = Sat8(v);
        }
      for (; i < width; ++i) {
        int64_t v = 0;
        for (int k = 0; k < 4; ++k) v += static_cast<int64_t>(r[k][i]) * b[k];
        d[i] = Sat8(static_cast<int>((v + (1 << 21)) >> 22));
      }
    } else {
      for (; i < width; ++i) {
        int64_t v = 0;
        for (int k = 0; k < ks; ++k) v += static_cast<int64_t>(r[k][i]) * b[k];
        d[i] = Sat8(static_cast<int>((v + (1 << 21)) >> 22));
      }
    }
  }
  return dst;
}

namespace {

/*! \brief The 2-D sampling weights of warpAffine for each 1/32-pixel offset (fy, fx), in 15-bit
 *  fixed point, products of the 1-D kernel's weights; each table's rounding error is put on one
 *  weight so that it sums to exactly 1. */
struct WarpTables {
  int ksize = 2;
  std::vector<int16_t> w;  // [fy][fx][ky][kx]
};

WarpTables MakeWarpTables(int interp) {
  WarpTables t;
  t.ksize = KernelSize(interp);
  const int ks = t.ksize, kk = ks * ks;
  std::vector<float> one(static_cast<size_t>(kTabSize) * ks);
  for (int i = 0; i < kTabSize; ++i) {
    const float f = static_cast<float>(i) / kTabSize;
    TapWeights(interp, f, &one[static_cast<size_t>(i) * ks]);
  }
  t.w.resize(static_cast<size_t>(kTabSize) * kTabSize * kk);
  for (int fy = 0; fy < kTabSize; ++fy)
    for (int fx = 0; fx < kTabSize; ++fx) {
      int16_t* w = &t.w[(static_cast<size_t>(fy) * kTabSize + fx) * kk];
      int sum = 0;
      for (int a = 0; a < ks; ++a)
        for (int b = 0; b < ks; ++b) {
          w[a * ks + b] = SatShort(one[static_cast<size_t>(fy) * ks + a] *
                                   one[static_cast<size_t>(fx) * ks + b] * kRemapOne);
          sum += w[a * ks + b];
        }
      if (sum != kRemapOne && ks > 2) {
        // the correction goes to the largest (sum too small) or smallest (too large) of the
        // 2 x 2 weights from tap ks/2 on, as OpenCV puts it
        const int h = ks / 2;
        int lo_a = h, lo_b = h, hi_a = h, hi_b = h;
        for (int a = h; a < h + 2; ++a)
          for (int b = h; b < h + 2; ++b) {
            if (w[a * ks + b] < w[lo_a * ks + lo_b]) {
              lo_a = a, lo_b = b;
            } else if (w[a * ks + b] > w[hi_a * ks + hi_b]) {
              hi_a = a, hi_b = b;
            }
          }
        const int diff = sum - kRemapOne;
        if (diff < 0) {
          w[hi_a * ks + hi_b] = static_cast<int16_t>(w[hi_a * ks + hi_b] - diff);
        } else {
          w[lo_a * ks + lo_b] = static_cast<int16_t>(w[lo_a * ks + lo_b] - diff);
        }
      }
    }
  return t;
}

inline int SatShortInt(int v) { return std::clamp(v, -32768, 32767); }

}  // namespace

Mat8 WarpAffineMat(const Mat8& src, const double m[6], int rows, int cols, int interp,
                   uint8_t fill) {
  SYMNET_CHECK(!src.empty()) << "affine transform: the image is empty";
  SYMNET_CHECK(rows > 0 && cols > 0)
      << "affine transform: the output size must be positive, not " << cols << " x " << rows
      << " (width x height); check max_img_size/min_img_size and the random scale";
  if (interp == kInterArea) interp = kInterLinear;
  // the inverse map: output pixel -> source position
  double a[6];
  double det = m[0] * m[4] - m[1] * m[3];
  det = det != 0 ? 1.0 / det : 0.0;
  a[0] = m[4] * det;
  a[4] = m[0] * det;
  a[1] = -m[1] * det;
  a[3] = -m[3] * det;
  a[2] = -a[0] * m[2] - a[1] * m[5];
  a[5] = -a[3] * m[2] - a[4] * m[5];

  const int cn = src.channels;
  Mat8 dst(rows, cols, cn);
  const int one = 1 << kPosBits;
  std::vector<int> dx(cols), dy(cols);
  for (int x = 0; x < cols; ++x) {
    dx[x] = RoundEven(a[0] * x * one);
    dy[x] = RoundEven(a[3] * x * one);
  }
  const bool nearest = interp == kInterNearest;
  const int round = nearest ? one / 2 : one / kTabSize / 2;
  const WarpTables tab = nearest ? WarpTables() : MakeWarpTables(interp);
  const int ks = tab.ksize, kk = ks * ks, back = ks / 2 - 1;
  std::vector<int> acc(cn);
  for (int y = 0; y < rows; ++y) {
    const int x0 = RoundEven((a[1] * y + a[2]) * one) + round;
    const int y0 = RoundEven((a[4] * y + a[5]) * one) + round;
    uint8_t* d = dst.row(y);
    for (int x = 0; x < cols; ++x) {
      uint8_t* out = d + x * cn;
      if (nearest) {
        const int sx = SatShortInt((x0 + dx[x]) >> kPosBits);
        const int sy = SatShortInt((y0 + dy[x]) >> kPosBits);
        if (sx >= 0 && sx < src.cols && sy >= 0 && sy < src.rows) {
          std::memcpy(out, src.row(sy) + sx * cn, cn);
        } else {
          std::memset(out, fill, cn);
        }
        continue;
      }
      const int px = (x0 + dx[x]) >> (kPosBits - kTabBits);
      const int py = (y0 + dy[x]) >> (kPosBits - kTabBits);
      const int sx = SatShortInt(px >> kTabBits) - back, sy = SatShortInt(py >> kTabBits) - back;
      const int16_t* w =
          &tab.w[(static_cast<size_t>(py & (kTabSize - 1)) * kTabSize + (px & (kTabSize - 1))) *
                 kk];
      if (sx >= src.cols || sx + ks <= 0 || sy >= src.rows || sy + ks <= 0) {
        std::memset(out, fill, cn);  // no tap inside
        continue;
      }
      const bool inside = sx >= 0 && sy >= 0 && sx + ks <= src.cols && sy + ks <= src.rows;
      std::fill(acc.begin(), acc.end(), 0);
      for (int i = 0; i < ks; ++i) {
        const int yy = sy + i;
        const bool row_in = yy >= 0 && yy < src.rows;
        const uint8_t* s = row_in ? src.row(yy) : nullptr;
        for (int j = 0; j < ks; ++j) {
          const int xx = sx + j, wij = w[i * ks + j];
          if (inside || (row_in && xx >= 0 && xx < src.cols)) {
            for (int c = 0; c < cn; ++c) acc[c] += s[xx * cn + c] * wij;
          } else {
            for (int c = 0; c < cn; ++c) acc[c] += fill * wij;
          }
        }
      }
      for (int c = 0; c < cn; ++c) out[c] = Sat8((acc[c] + (1 << (kRemapBits - 1))) >> kRemapBits);
    }
  }
  return dst;
}

Mat8 PadMat(const Mat8& src, int pad, uint8_t fill) {
  if (pad <= 0) return src;
  Mat8 dst(src.rows + 2 * pad, src.cols + 2 * pad, src.channels);
  std::fill(dst.data.begin(), dst.data.end(), fill);
  const size_t n = static_cast<size_t>(src.cols) * src.channels;
  for (int y = 0; y < src.rows; ++y)
    std::memcpy(dst.row(y + pad) + static_cast<size_t>(pad) * src.channels, src.row(y), n);
  return dst;
}

Mat8 CropMat(const Mat8& src, int y, int x, int h, int w) {
  SYMNET_CHECK(y >= 0 && x >= 0 && h > 0 && w > 0 && y + h <= src.rows && x + w <= src.cols)
      << "crop: the region " << w << " x " << h << " at (" << x << ", " << y
      << ") (width x height at (x, y)) is not inside the " << src.cols << " x " << src.rows
      << " image";
  if (y == 0 && x == 0 && h == src.rows && w == src.cols) return src;
  Mat8 dst(h, w, src.channels);
  const size_t n = static_cast<size_t>(w) * src.channels;
  for (int r = 0; r < h; ++r)
    std::memcpy(dst.row(r), src.row(y + r) + static_cast<size_t>(x) * src.channels, n);
  return dst;
}

}  // namespace io
}  // namespace symnet
