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

/*!
 * \brief Applies the iterator's augmentation to `img` and writes the (C, H, W) float result of
 *  `p.data_shape` into `out`.
 */
void AugmentToCHW(const Image& img, const ImageRecordIterParams& p, std::mt19937_64* rng,
                  float* out);

}  // namespace io
}  // namespace symnet

#endif  // SYMNET_SRC_IO_IMAGE_AUGMENT_H_
