/*! \brief MXNet's default image augmenter (see image_augment.h). */
// OpenCV (SSE2) computes the float expressions here as separate multiplies and adds: a fused
// multiply-add, with its single rounding, would move some pixels by 1
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "image_augment.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>

#include "symnet/base.h"

namespace symnet {
namespace io {

Image Resize(const Image& src, int height, int width) {
  SYMNET_CHECK(static_cast<int64_t>(height) * width <= MaxImagePixels())
      << "resizing a " << src.width << " x " << src.height << " image to " << width << " x "
      << height << " exceeds the limit of " << MaxImagePixels()
      << " pixels (SYMNET_MAX_IMAGE_PIXELS)";
  Mat8 m;
  m.rows = src.height;
  m.cols = src.width;
  m.channels = 3;
  m.data = src.rgb;
  Mat8 r = ResizeMat(m, height, width, kInterLinear);
  Image dst;
  dst.height = r.rows;
  dst.width = r.cols;
  dst.rgb = std::move(r.data);
  return dst;
}

// ---- random numbers ---------------------------------------------------------------------------

float AugRandom::Uniform01() {
  // one 32-bit draw over 2^32, in float (the canonical float of libstdc++)
  const float u = static_cast<float>(eng_()) / 4294967296.0f;
  return u >= 1.0f ? std::nextafter(1.0f, 0.0f) : u;
}

int64_t AugRandom::UniformInt(int64_t lo, int64_t hi) {
  SYMNET_CHECK(lo <= hi) << "random integer in an empty range [" << lo << ", " << hi << "]";
  const uint64_t range = static_cast<uint64_t>(hi - lo);
  if (range >= 0xFFFFFFFFull) {  // the generator's whole range (larger ones never occur here)
    return lo + static_cast<int64_t>(eng_());
  }
  // rejection of the top, incomplete bucket, then division into range + 1 buckets
  const uint64_t buckets = range + 1;
  const uint64_t width = 0xFFFFFFFFull / buckets;
  const uint64_t limit = buckets * width;
  uint64_t v;
  do {
    v = eng_();
  } while (v >= limit);
  return lo + static_cast<int64_t>(v / width);
}

bool AugRandom::Coin() {
  // two draws make a double in [0, 1) (53 bits)
  const double lo = static_cast<double>(eng_());
  const double hi = static_cast<double>(eng_());
  const double u = (lo + hi * 4294967296.0) / 18446744073709551616.0;
  return u < 0.5;
}

float NormalDraw::operator()(AugRandom* rng) {
  float z;
  if (has_saved_) {
    has_saved_ = false;
    z = saved_;
  } else {
    float x, y, r2;
    do {
      x = static_cast<float>(2.0f * rng->Uniform01() - 1.0);
      y = static_cast<float>(2.0f * rng->Uniform01() - 1.0);
      r2 = x * x + y * y;
    } while (r2 > 1.0f || r2 == 0.0f);
    const float mult = std::sqrt(-2 * std::log(r2) / r2);
    saved_ = x * mult;
    has_saved_ = true;
    z = y * mult;
  }
  return z * stddev_ + mean_;
}

int PickInterpolation(int method, int old_w, int old_h, int new_w, int new_h, AugRandom* rng) {
  if (method == 9) {
    if (new_w > old_w && new_h > old_h) return kInterCubic;  // enlarging
    if (new_w < old_w && new_h < old_h) return kInterArea;   // shrinking
    return kInterLinear;
  }
  if (method == 10) return static_cast<int>(rng->UniformInt(0, 4));
  return method;
}

namespace {

constexpr double kPi = 3.14159265358979323846;

/*!
 * \brief The grey level MXNet's contrast and saturation jitters use: OpenCV's RGB-to-grey
 *  weights (0.299, 0.587, 0.114 in 14-bit fixed point) applied to its BGR pixels, so the red
 *  weight lands on blue and the blue one on red. `px` is RGB here.
 */
inline int GreyForJitter(const uint8_t* px) {
  return (px[2] * 4899 + px[1] * 9617 + px[0] * 1868 + (1 << 13)) >> 14;
}

inline uint8_t Sat8f(float v) {
  if (v >= 255.f) return 255;
  if (v <= 0.f) return 0;
  return static_cast<uint8_t>(std::clamp(static_cast<int>(std::nearbyintf(v)), 0, 255));
}

/*! \brief x * alpha + beta per value, rounded and saturated (cv::Mat::convertTo). */
void ScaleShift(Mat8* m, float alpha, float beta) {
  for (uint8_t& v : m->data) v = Sat8f(static_cast<float>(v) * alpha + beta);
}

void Brightness(Mat8* m, float alpha) { ScaleShift(m, alpha, 0.f); }

void Contrast(Mat8* m, float alpha) {
  const size_t n = static_cast<size_t>(m->rows) * m->cols;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* px = &m->data[i * m->channels];
    sum += m->channels == 3 ? GreyForJitter(px) : px[0];
  }
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  ScaleShift(m, alpha, (1 - alpha) * mean);
}

void Saturation(Mat8* m, float alpha) {
  const size_t n = static_cast<size_t>(m->rows) * m->cols;
  const float beta = 1 - alpha;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* px = &m->data[i * 3];
    const float g = static_cast<float>(GreyForJitter(px));
    for (int c = 0; c < 3; ++c) px[c] = Sat8f(static_cast<float>(px[c]) * alpha + g * beta);
  }
}

/*! \brief 8-bit RGB -> HLS as OpenCV stores it: H in [0, 180) (degrees / 2), L and S in
 *  [0, 255], computed in float from the pixel / 255. */
void RgbToHls(const uint8_t* px, int* h8, int* l8, int* s8) {
  const float r = px[0] * (1.f / 255.f), g = px[1] * (1.f / 255.f), b = px[2] * (1.f / 255.f);
  const float hi = std::max(r, std::max(g, b)), lo = std::min(r, std::min(g, b));
  float diff = hi - lo, h = 0.f, s = 0.f;
  const float l = (hi + lo) * 0.5f;
  if (diff > FLT_EPSILON) {
    s = l < 0.5f ? diff / (hi + lo) : diff / (2 - (hi + lo));
    diff = 60.f / diff;
    if (hi == r) {
      h = (g - b) * diff;
    } else if (hi == g) {
      h = (b - r) * diff + 120.f;
    } else {
      h = (r - g) * diff + 240.f;
    }
    if (h < 0.f) h += 360.f;
  }
  *h8 = Sat8f(h * 0.5f);
  *l8 = Sat8f(l * 255.f);
  *s8 = Sat8f(s * 255.f);
}

/*! \brief The inverse, 8-bit HLS -> RGB (hue in sextants of 30 units). */
void HlsToRgb(int h8, int l8, int s8, uint8_t* px) {
  float h = static_cast<float>(h8);
  const float l = l8 * (1.f / 255.f), s = s8 * (1.f / 255.f);
  float r, g, b;
  if (s == 0) {
    r = g = b = l;
  } else {
    const float top = l <= 0.5f ? l * (1 + s) : l + s - l * s;
    const float bottom = 2 * l - top;
    h *= 6.f / 180.f;
    while (h < 0) h += 6;
    while (h >= 6) h -= 6;
    const int sextant = static_cast<int>(std::floor(h));
    h -= static_cast<float>(sextant);
    const float falling = bottom + (top - bottom) * (1 - h);
    const float rising = bottom + (top - bottom) * h;
    switch (sextant) {
      case 0:  // red to yellow
        r = top, g = rising, b = bottom;
        break;
      case 1:  // yellow to green
        r = falling, g = top, b = bottom;
        break;
      case 2:  // green to cyan
        r = bottom, g = top, b = rising;
        break;
      case 3:  // cyan to blue
        r = bottom, g = falling, b = top;
        break;
      case 4:  // blue to magenta
        r = rising, g = bottom, b = top;
        break;
      default:  // magenta to red
        r = top, g = bottom, b = falling;
        break;
    }
  }
  px[0] = Sat8f(r * 255.f);
  px[1] = Sat8f(g * 255.f);
  px[2] = Sat8f(b * 255.f);
}

void ShiftHls(Mat8* m, int dh, int dl, int ds) {
  const size_t n = static_cast<size_t>(m->rows) * m->cols;
  if (m->channels == 1) {  // a grey pixel's lightness is its value (hue and saturation are 0)
    for (size_t i = 0; i < n; ++i)
      m->data[i] = static_cast<uint8_t>(std::clamp(m->data[i] + dl, 0, 255));
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    uint8_t* px = &m->data[i * 3];
    int h, l, s;
    RgbToHls(px, &h, &l, &s);
    HlsToRgb(std::clamp(h + dh, 0, 180), std::clamp(l + dl, 0, 255), std::clamp(s + ds, 0, 255),
             px);
  }
}

/*! \brief AlexNet's lighting noise: the RGB eigenvectors of ImageNet's pixel covariance scaled by
 *  their eigenvalues, mixed by three normal draws (R, G, B). */
void PcaNoise(Mat8* m, float stddev, AugRandom* rng) {
  static const float eigval[3] = {55.46f, 4.794f, 1.148f};
  static const float eigvec[3][3] = {
      {-0.5675f, 0.7192f, 0.4009f}, {-0.5808f, -0.0045f, -0.8140f}, {-0.5836f, -0.6948f, 0.4203f}};
  NormalDraw normal(0.f, stddev);
  const float alpha[3] = {normal(rng), normal(rng), normal(rng)};
  float shift[3];
  for (int c = 0; c < 3; ++c) {
    shift[c] = eigval[0] * eigvec[c][0] * alpha[0] + eigval[1] * eigvec[c][1] * alpha[1] +
               eigval[2] * eigvec[c][2] * alpha[2];
  }
  const size_t n = static_cast<size_t>(m->rows) * m->cols;
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      uint8_t& v = m->data[i * 3 + c];
      // added to the integer and truncated toward zero, then clamped (as MXNet does)
      v = static_cast<uint8_t>(
          std::clamp(static_cast<int>(static_cast<float>(v) + shift[c]), 0, 255));
    }
}

}  // namespace

Mat8 DefaultAugment(const Mat8& src, const ImageRecordIterParams& p, AugRandom* rng,
                    AugmentNote* note) {
  const int H = static_cast<int>(p.data_shape[1]), W = static_cast<int>(p.data_shape[2]);
  const uint8_t fill = static_cast<uint8_t>(p.fill_value);
  float max_aspect, min_aspect;
  if (p.min_aspect_ratio.has_value()) {
    min_aspect = *p.min_aspect_ratio;
    max_aspect = p.max_aspect_ratio;
  } else {
    min_aspect = 1 - p.max_aspect_ratio;
    max_aspect = 1 + p.max_aspect_ratio;
  }
  Mat8 res = src;

  // 1. the shorter side to `resize` (integer arithmetic, as MXNet)
  if (p.resize != -1) {
    const int64_t longer = static_cast<int64_t>(p.resize) * std::max(res.rows, res.cols) /
                           std::min(res.rows, res.cols);
    SYMNET_CHECK(longer < (int64_t{1} << 30))
        << "resize=" << p.resize << " would make the " << res.cols << " x " << res.rows
        << " image's longer side " << longer << " pixels";
    const int nh = res.rows > res.cols ? static_cast<int>(longer) : p.resize;
    const int nw = res.rows > res.cols ? p.resize : static_cast<int>(longer);
    res = ResizeMat(res, std::max(nh, 1), std::max(nw, 1),
                    PickInterpolation(p.inter_method, res.cols, res.rows, nw, nh, rng));
  }

  // 2. one affine transform: shear, rotation, scale and aspect
  if (p.max_rotate_angle > 0 || p.max_shear_ratio > 0.0f || p.rotate > 0 ||
      !p.rotate_list.empty() || p.max_random_scale != 1.0f || p.min_random_scale != 1.0f ||
      (!p.random_resized_crop && (min_aspect != 1.0f || max_aspect != 1.0f)) ||
      p.max_img_size != 1e10f || p.min_img_size != 0.0f) {
    const float shear = rng->Uniform01() * p.max_shear_ratio * 2 - p.max_shear_ratio;
    int angle = static_cast<int>(rng->UniformInt(-p.max_rotate_angle, p.max_rotate_angle));
    if (p.rotate > 0) angle = p.rotate;
    if (!p.rotate_list.empty())
      angle = p.rotate_list[rng->UniformInt(0, static_cast<int64_t>(p.rotate_list.size()) - 1)];
    const float ca = static_cast<float>(std::cos(angle / 180.0 * kPi));
    const float sa = static_cast<float>(std::sin(angle / 180.0 * kPi));
    float scale = 1.0f, ratio = 1.0f;
    if (!p.random_resized_crop) {
      scale = rng->Uniform01() * (p.max_random_scale - p.min_random_scale) + p.min_random_scale;
      ratio = rng->Uniform01() * (max_aspect - min_aspect) + min_aspect;
    }
    // x is scaled by ws and y by hs, with ws / hs = ratio and their mean = scale
    const float hs = 2 * scale / (1 + ratio), ws = ratio * hs;
    const float new_w = std::max(p.min_img_size, std::min(p.max_img_size, scale * res.cols));
    const float new_h = std::max(p.min_img_size, std::min(p.max_img_size, scale * res.rows));
    const float m00 = hs * ca - shear * sa * ws, m10 = -sa * ws;
    const float m01 = hs * sa + shear * ca * ws, m11 = ca * ws;
    // the source centre goes to the output centre
    const float cx = m00 * res.cols + m01 * res.rows, cy = m10 * res.cols + m11 * res.rows;
    const float m02 = (new_w - cx) / 2, m12 = (new_h - cy) / 2;
    SYMNET_CHECK(new_w < 1e9f && new_h < 1e9f)
        << "the affine transform would make a " << new_w << " x " << new_h
        << " (width x height) image; check min_img_size and min/max_random_scale";
    const int out_w = static_cast<int>(new_w), out_h = static_cast<int>(new_h);
    const int interp = PickInterpolation(p.inter_method, res.cols, res.rows, out_w, out_h, rng);
    const double m[6] = {m00, m01, m02, m10, m11, m12};
    res = WarpAffineMat(res, m, out_h, out_w, interp, fill);
  }

  // 3. padding
  if (p.pad > 0) res = PadMat(res, p.pad, fill);

  // 4. the crop
  bool cropped = false;
  if (p.random_resized_crop) {
    if (p.max_random_area != 1.0f || p.min_random_area != 1.0f || max_aspect != 1.0f ||
        min_aspect != 1.0f) {
      const float area = static_cast<float>(res.rows) * res.cols;
      for (int attempt = 0; attempt < 10; ++attempt) {
        const float frac = rng->Uniform(p.min_random_area, p.max_random_area);
        const float ratio = rng->Uniform(min_aspect, max_aspect);
        const float target = area * frac;
        int h = static_cast<int>(std::round(std::sqrt(target / ratio)));
        int w = static_cast<int>(std::round(std::sqrt(target * ratio)));
        if (rng->Uniform01() > 0.5f) std::swap(h, w);
        if (h <= res.rows && w <= res.cols && h >= 1 && w >= 1) {
          const int y = static_cast<int>(rng->UniformInt(0, res.rows - h));
          const int x = static_cast<int>(rng->UniformInt(0, res.cols - w));
          const int interp = PickInterpolation(p.inter_method, w, h, W, H, rng);
          res = ResizeMat(CropMat(res, y, x, h, w), H, W, interp);
          cropped = true;
          break;
        }
      }
    }
  } else if (p.max_crop_size != -1 || p.min_crop_size != -1) {
    SYMNET_CHECK(res.cols >= p.max_crop_size && res.rows >= p.max_crop_size)
        << "the image (" << res.rows << " x " << res.cols << ", height x width, after resize, "
        << "affine transform and pad) is smaller than max_crop_size " << p.max_crop_size;
    const int size = static_cast<int>(rng->UniformInt(p.min_crop_size, p.max_crop_size));
    int y = res.rows - size, x = res.cols - size;
    if (p.rand_crop) {
      y = static_cast<int>(rng->UniformInt(0, y));
      x = static_cast<int>(rng->UniformInt(0, x));
    } else {
      y /= 2;
      x /= 2;
    }
    const int interp = PickInterpolation(p.inter_method, size, size, W, H, rng);
    res = ResizeMat(CropMat(res, y, x, size, size), H, W, interp);
    cropped = true;
  }
  if (!cropped) {
    const int interp = PickInterpolation(p.inter_method, res.cols, res.rows, W, H, rng);
    if ((res.rows < H || res.cols < W) && note != nullptr) *note = {true, res.rows, res.cols};
    // too small for the crop: scaled up, keeping the aspect, until both sides fit
    if (res.rows < H) {
      const int cols = static_cast<int>(static_cast<float>(H) / res.rows * res.cols);
      res = ResizeMat(res, H, std::max(cols, 1), interp);
    }
    if (res.cols < W) {
      const int rows = static_cast<int>(static_cast<float>(W) / res.cols * res.rows);
      res = ResizeMat(res, std::max(rows, H), W, interp);
    }
    int y = res.rows - H, x = res.cols - W;
    if (p.rand_crop) {
      y = static_cast<int>(rng->UniformInt(0, y));
      x = static_cast<int>(rng->UniformInt(0, x));
    } else {
      y /= 2;
      x /= 2;
    }
    res = CropMat(res, y, x, H, W);
  }

  // 5. brightness, contrast and saturation, in a random order
  if (p.brightness > 0.0f || p.contrast > 0.0f || p.saturation > 0.0f) {
    const float ab = static_cast<float>(1.0 + rng->Uniform(-p.brightness, p.brightness));
    const float ac = static_cast<float>(1.0 + rng->Uniform(-p.contrast, p.contrast));
    const float as = static_cast<float>(1.0 + rng->Uniform(-p.saturation, p.saturation));
    int order[3] = {0, 1, 2};
    std::shuffle(order, order + 3, rng->side());
    for (int op : order) {
      if (op == 0) {
        Brightness(&res, ab);
      } else if (op == 1) {
        Contrast(&res, ac);
      } else if (res.channels == 3) {
        Saturation(&res, as);
      }
    }
  }

  // 6. hue, lightness and saturation shifts (each draw the mean of two uniforms, weighted 1:4,
  //    which makes extreme shifts rarer)
  if (p.random_h != 0 || p.random_s != 0 || p.random_l != 0) {
    float rh = rng->Uniform01();
    rh += 4 * rng->Uniform01();
    rh = rh / 5;
    float rs = rng->Uniform01();
    rs += 4 * rng->Uniform01();
    rs = rs / 5;
    float rl = rng->Uniform01();
    rl += 4 * rng->Uniform01();
    rl = rl / 5;
    const int dh = static_cast<int>(rh * p.random_h * 2 - p.random_h);
    const int ds = static_cast<int>(rs * p.random_s * 2 - p.random_s);
    const int dl = static_cast<int>(rl * p.random_l * 2 - p.random_l);
    ShiftHls(&res, dh, dl, ds);
  }

  // 7. PCA lighting noise
  if (p.pca_noise > 0.0f && res.channels == 3) PcaNoise(&res, p.pca_noise, rng);
  return res;
}

void WriteCHW(const Mat8& img, const ImageRecordIterParams& p, AugRandom* rng,
              const float* mean_image, DType out_type, void* out) {
  const int C = static_cast<int>(p.data_shape[0]), H = static_cast<int>(p.data_shape[1]),
            W = static_cast<int>(p.data_shape[2]);
  SYMNET_CHECK(img.rows == H && img.cols == W && img.channels == C)
      << "the augmented image is " << img.rows << " x " << img.cols << " x " << img.channels
      << ", not data_shape " << p.data_shape << " (height x width x channels)";
  const bool mirrored = (p.rand_mirror && rng->Coin()) || p.mirror;
  float contrast = 1, illumination = 0;
  if (out_type != DType::kUint8) {
    contrast = (rng->Uniform01() * p.max_random_contrast * 2 - p.max_random_contrast + 1) * p.scale;
    illumination =
        (rng->Uniform01() * p.max_random_illumination * 2 - p.max_random_illumination) * p.scale;
  }
  const float means[4] = {p.mean_r, p.mean_g, p.mean_b, p.mean_a};
  const float stds[4] = {p.std_r, p.std_g, p.std_b, p.std_a};
  float mult[4], bias[4];
  int mean_int[4];
  for (int c = 0; c < 4; ++c) {
    mult[c] = contrast / stds[c];
    bias[c] = illumination / stds[c];
    mean_int[c] = static_cast<int>(std::round(means[c]));
  }
  const size_t plane = static_cast<size_t>(H) * W;
  for (int y = 0; y < H; ++y) {
    const uint8_t* row = img.row(y);
    for (int x = 0; x < W; ++x) {
      const size_t here = static_cast<size_t>(y) * W + x;
      const size_t at = static_cast<size_t>(y) * W + (mirrored ? W - 1 - x : x);
      for (int c = 0; c < C; ++c) {
        const uint8_t v = row[x * C + c];
        const size_t o = c * plane + at;
        if (out_type == DType::kUint8) {
          static_cast<uint8_t*>(out)[o] = v;
        } else if (out_type == DType::kInt8) {
          const int m =
              mean_image ? static_cast<int>(std::round(mean_image[c * plane + here])) : mean_int[c];
          static_cast<int8_t*>(out)[o] = static_cast<int8_t>(std::clamp(v - m, -128, 127));
        } else {
          const float mean = mean_image ? mean_image[c * plane + here] : means[c];
          static_cast<float*>(out)[o] = (static_cast<float>(v) - mean) * mult[c] + bias[c];
        }
      }
    }
  }
}

void AugmentToCHW(const Image& input, const ImageRecordIterParams& p, std::mt19937_64* rng,
                  float* out, AugmentNote* note) {
  Mat8 img;
  img.rows = input.height;
  img.cols = input.width;
  if (p.data_shape[0] == 1) {  // luma, as the decoder's grey output
    img.channels = 1;
    img.data.resize(static_cast<size_t>(img.rows) * img.cols);
    for (size_t i = 0; i < img.data.size(); ++i) {
      const uint8_t* px = &input.rgb[i * 3];
      img.data[i] = static_cast<uint8_t>((px[0] * 4899 + px[1] * 9617 + px[2] * 1868 + 8192) >> 14);
    }
  } else {
    img.channels = 3;
    img.data = input.rgb;
  }
  AugRandom r((*rng)());
  const Mat8 res = DefaultAugment(img, p, &r, note);
  WriteCHW(res, p, &r, nullptr, DType::kFloat32, out);
}

}  // namespace io
}  // namespace symnet
