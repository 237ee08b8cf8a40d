/*! \brief Image augmentation (see image_augment.h). */
#include "image_augment.h"

#include <algorithm>
#include <cmath>

#include "symnet/base.h"

namespace symnet {
namespace io {

Image Resize(const Image& src, int height, int width) {
  SYMNET_CHECK(static_cast<int64_t>(height) * width <= MaxImagePixels())
      << "resizing a " << src.width << " x " << src.height << " image to " << width << " x "
      << height << " exceeds the limit of " << MaxImagePixels()
      << " pixels (SYMNET_MAX_IMAGE_PIXELS)";
  Image dst;
  dst.height = height;
  dst.width = width;
  dst.rgb.resize(static_cast<size_t>(height) * width * 3);
  const float sy = static_cast<float>(src.height) / height,
              sx = static_cast<float>(src.width) / width;
  for (int y = 0; y < height; ++y) {
    const float fy = std::max(0.0f, (y + 0.5f) * sy - 0.5f);
    const int y0 = std::min(static_cast<int>(fy), src.height - 1),
              y1 = std::min(y0 + 1, src.height - 1);
    const float wy = fy - y0;
    for (int x = 0; x < width; ++x) {
      const float fx = std::max(0.0f, (x + 0.5f) * sx - 0.5f);
      const int x0 = std::min(static_cast<int>(fx), src.width - 1),
                x1 = std::min(x0 + 1, src.width - 1);
      const float wx = fx - x0;
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int yy, int xx) {
          return static_cast<float>(src.rgb[(static_cast<size_t>(yy) * src.width + xx) * 3 + c]);
        };
        const float v = (1 - wy) * ((1 - wx) * at(y0, x0) + wx * at(y0, x1)) +
                        wy * ((1 - wx) * at(y1, x0) + wx * at(y1, x1));
        dst.rgb[(static_cast<size_t>(y) * width + x) * 3 + c] =
            static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 255.0f)));
      }
    }
  }
  return dst;
}

namespace {

Image Crop(const Image& src, int y0, int x0, int h, int w) {
  Image dst;
  dst.height = h;
  dst.width = w;
  dst.rgb.resize(static_cast<size_t>(h) * w * 3);
  for (int y = 0; y < h; ++y)
    std::copy_n(&src.rgb[(static_cast<size_t>(y0 + y) * src.width + x0) * 3],
                static_cast<size_t>(w) * 3, &dst.rgb[static_cast<size_t>(y) * w * 3]);
  return dst;
}

/*! \brief A random region of `area` in [min, max] of the image and aspect in [min, max]. */
Image RandomResizedCrop(const Image& img, const ImageRecordIterParams& p, int H, int W,
                        std::mt19937_64* rng) {
  std::uniform_real_distribution<float> area_d(p.min_random_area, p.max_random_area);
  std::uniform_real_distribution<float> logr(std::log(p.min_aspect_ratio),
                                             std::log(p.max_aspect_ratio));
  const float total = static_cast<float>(img.height) * img.width;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const float area = area_d(*rng) * total, ratio = std::exp(logr(*rng));
    const int w = static_cast<int>(std::lround(std::sqrt(area * ratio)));
    const int h = static_cast<int>(std::lround(std::sqrt(area / ratio)));
    if (w >= 1 && h >= 1 && w <= img.width && h <= img.height) {
      const int y0 = std::uniform_int_distribution<int>(0, img.height - h)(*rng);
      const int x0 = std::uniform_int_distribution<int>(0, img.width - w)(*rng);
      return Resize(Crop(img, y0, x0, h, w), H, W);
    }
  }
  const int s = std::min(img.height, img.width);  // fall back to the centre square
  return Resize(Crop(img, (img.height - s) / 2, (img.width - s) / 2, s, s), H, W);
}

}  // namespace

void AugmentToCHW(const Image& input, const ImageRecordIterParams& p, std::mt19937_64* rng,
                  float* out, AugmentNote* note) {
  const int C = static_cast<int>(p.data_shape[0]), H = static_cast<int>(p.data_shape[1]),
            W = static_cast<int>(p.data_shape[2]);
  Image img = input;
  if (p.resize > 0) {
    const float s = static_cast<float>(p.resize) / std::min(img.height, img.width);
    img = Resize(img, std::max(1, static_cast<int>(std::lround(img.height * s))),
                 std::max(1, static_cast<int>(std::lround(img.width * s))));
  }
  if (p.random_resized_crop) {
    img = RandomResizedCrop(img, p, H, W, rng);
  } else {
    if (img.height < H || img.width < W) {  // too small for the crop: scale up to fit
      if (note != nullptr) *note = AugmentNote{true, img.height, img.width};
      const float s =
          std::max(static_cast<float>(H) / img.height, static_cast<float>(W) / img.width);
      img = Resize(img, std::max(H, static_cast<int>(std::ceil(img.height * s))),
                   std::max(W, static_cast<int>(std::ceil(img.width * s))));
    }
    int y0 = (img.height - H) / 2, x0 = (img.width - W) / 2;
    if (p.rand_crop) {
      y0 = std::uniform_int_distribution<int>(0, img.height - H)(*rng);
      x0 = std::uniform_int_distribution<int>(0, img.width - W)(*rng);
    }
    if (img.height != H || img.width != W) img = Crop(img, y0, x0, H, W);
  }
  const bool mirror = p.rand_mirror && std::uniform_int_distribution<int>(0, 1)(*rng) == 1;
  const float mean[3] = {p.mean_r, p.mean_g, p.mean_b},
              inv_std[3] = {p.scale / p.std_r, p.scale / p.std_g, p.scale / p.std_b};
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const uint8_t* px = &img.rgb[(static_cast<size_t>(y) * W + (mirror ? W - 1 - x : x)) * 3];
      if (C == 1) {  // luminance
        const float g = 0.299f * px[0] + 0.587f * px[1] + 0.114f * px[2];
        out[static_cast<size_t>(y) * W + x] = (g - mean[0]) * inv_std[0];
      } else {
        for (int c = 0; c < 3; ++c)
          out[(static_cast<size_t>(c) * H + y) * W + x] = (px[c] - mean[c]) * inv_std[c];
      }
    }
}

}  // namespace io
}  // namespace symnet
