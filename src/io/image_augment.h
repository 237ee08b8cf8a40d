/*!
 * \brief ImageRecordIter's augmentation: MXNet 1.9.1's default augmenter (aug_default) on one
 *  decoded 8-bit image, and the random numbers it draws.
 *
 *  The order of operations and the geometry are MXNet's: resize of the shorter side; one affine
 *  transform for rotation, shear, random scale and aspect (output size scale x the input,
 *  clamped to [min_img_size, max_img_size], centre kept, fill_value outside); pad; then one crop:
 *  random_resized_crop, or a square of random side in [min_crop_size, max_crop_size] resized to
 *  data_shape, or data_shape itself (centre or random position; an image smaller than
 *  data_shape is first scaled up, keeping its aspect); then brightness/contrast/saturation in
 *  random order, the HLS shift (random_h/s/l) and PCA lighting noise. Pixels are computed as
 *  OpenCV computes them (image_resample.h).
 */
#ifndef SYMNET_SRC_IO_IMAGE_AUGMENT_H_
#define SYMNET_SRC_IO_IMAGE_AUGMENT_H_

#include <cstdint>
#include <random>

#include "image_resample.h"
#include "jpeg_codec.h"
#include "symnet/image_record_iter.h"

namespace symnet {
namespace io {

/*! \brief Bilinear resize of an RGB image (checked against the pixel limit first). */
Image Resize(const Image& src, int height, int width);

/*!
 * \brief The augmenter's random numbers: std::mt19937 with the distributions of the libstdc++
 *  MXNet 1.9.1 was built with (uniform ints by rejection and division, floats from one 32-bit
 *  draw, Marsaglia's polar method for normals), written out here so that they do not depend on
 *  this compiler's library. Seeded as MXNet seeds it (seed_aug), the draws are MXNet's.
 */
class AugRandom {
 public:
  explicit AugRandom(uint64_t seed)
      : eng_(static_cast<uint32_t>(seed)), side_(static_cast<uint32_t>(seed ^ 0x5bd1e995u)) {}
  /*! \brief Uniform in [0, 1). */
  float Uniform01();
  /*! \brief Uniform in [a, b). */
  float Uniform(float a, float b) { return Uniform01() * (b - a) + a; }
  /*! \brief Uniform integer in [lo, hi]. */
  int64_t UniformInt(int64_t lo, int64_t hi);
  /*! \brief True with probability 1/2 (a draw of 53 bits). */
  bool Coin();
  /*! \brief A second generator for draws MXNet takes from elsewhere (the order of the colour
   *  jitters), so that they do not shift the main sequence. */
  std::mt19937& side() { return side_; }
  std::mt19937& engine() { return eng_; }

 private:
  std::mt19937 eng_, side_;
};

/*! \brief Normal numbers (Marsaglia's polar method; the second of each pair is kept for the next
 *  call), one object per use as MXNet makes one per image. */
class NormalDraw {
 public:
  NormalDraw(float mean, float stddev) : mean_(mean), stddev_(stddev) {}
  float operator()(AugRandom* rng);

 private:
  float mean_, stddev_, saved_ = 0;
  bool has_saved_ = false;
};

/*! \brief What DefaultAugment did that the caller may want to tell the user. */
struct AugmentNote {
  bool scaled_up = false;     // the image was smaller than data_shape and scaled up to fit
  int height = 0, width = 0;  // its size then
};

/*!
 * \brief MXNet's default augmenter on `src` (RGB, or grey with 1 channel), returning an image of
 *  data_shape's height and width. Throws on an impossible crop (a crop size larger than the
 *  image), naming the sizes.
 */
Mat8 DefaultAugment(const Mat8& src, const ImageRecordIterParams& p, AugRandom* rng,
                    AugmentNote* note = nullptr);

/*!
 * \brief Mirrors and normalises an augmented image (data_shape's size) into (C, H, W) `out` of
 *  `out_type`, drawing as MXNet does (the mirror coin with rand_mirror, then the random contrast
 *  and illumination). uint8: the pixels; int8: pixel - round(mean), saturated; float32:
 *  ((pixel - mean) * (1 + contrast) * scale + illumination * scale) / std. `mean_image` (C, H, W),
 *  if given, replaces mean_r/g/b at each pixel (before the mirror, as in MXNet).
 */
void WriteCHW(const Mat8& img, const ImageRecordIterParams& p, AugRandom* rng,
              const float* mean_image, DType out_type, void* out);

/*!
 * \brief Augments a decoded RGB image (grey for 1-channel data_shape: its luma) and writes the
 *  float32 (C, H, W) result of `p.data_shape` into `out`; the augmentation is seeded from `rng`.
 */
void AugmentToCHW(const Image& img, const ImageRecordIterParams& p, std::mt19937_64* rng,
                  float* out, AugmentNote* note = nullptr);

/*! \brief MXNet's interpolation for inter_method 9 (by direction) and 10 (random of 0-4). */
int PickInterpolation(int method, int old_w, int old_h, int new_w, int new_h, AugRandom* rng);

}  // namespace io
}  // namespace symnet

#endif  // SYMNET_SRC_IO_IMAGE_AUGMENT_H_
