/*! \brief Image augmentation for ImageRecordIter: resize, crops, mirror, normalisation. */
#ifndef SYMNET_SRC_IO_IMAGE_AUGMENT_H_
#define SYMNET_SRC_IO_IMAGE_AUGMENT_H_

#include <random>

#include "jpeg_codec.h"
#include "symnet/image_record_iter.h"

namespace symnet {
namespace io {

/*! \brief Bilinear resize of an RGB image. */
Image Resize(const Image& src, int height, int width);

/*! \brief What AugmentToCHW did that the caller may want to tell the user. */
struct AugmentNote {
  bool scaled_up = false;     // the image (after `resize`) was smaller than data_shape
  int height = 0, width = 0;  // its size then
};

/*!
 * \brief Applies the iterator's augmentation to `img` and writes the (C, H, W) float result of
 *  `p.data_shape` into `out`. An image smaller than data_shape is scaled up to fit (MXNet's
 *  default augmenter refuses it instead); `note`, if given, says so.
 */
void AugmentToCHW(const Image& img, const ImageRecordIterParams& p, std::mt19937_64* rng,
                  float* out, AugmentNote* note = nullptr);

}  // namespace io
}  // namespace symnet

#endif  // SYMNET_SRC_IO_IMAGE_AUGMENT_H_
