/*!
 * \brief 8-bit image geometry for ImageRecordIter's augmenter: resize, affine warp, padding and
 *  crops, computed the way OpenCV 3.4 (which MXNet 1.9.1 links) computes them on uint8 images,
 *  so that the augmented pixels match MXNet's: the same sampling positions, border rules and
 *  fixed-point weights. Where OpenCV's SIMD and scalar paths round differently, a pixel may
 *  differ from MXNet's by 1 (tests/python/test_image_record_iter_options.py states the bounds).
 */
#ifndef SYMNET_SRC_IO_IMAGE_RESAMPLE_H_
#define SYMNET_SRC_IO_IMAGE_RESAMPLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace symnet {
namespace io {

/*! \brief An 8-bit image: rows x cols pixels of `channels` interleaved values, row by row. */
struct Mat8 {
  int rows = 0, cols = 0, channels = 3;
  std::vector<uint8_t> data;

  Mat8() = default;
  /*! \brief A zero image of that size (checked against the pixel limit, MaxImagePixels()). */
  Mat8(int rows, int cols, int channels);
  uint8_t* row(int y) { return data.data() + static_cast<size_t>(y) * cols * channels; }
  const uint8_t* row(int y) const { return data.data() + static_cast<size_t>(y) * cols * channels; }
  bool empty() const { return rows <= 0 || cols <= 0; }
};

/*! \brief OpenCV's interpolation codes (MXNet's inter_method 0-4). */
enum Interpolation : int {
  kInterNearest = 0,
  kInterLinear = 1,
  kInterCubic = 2,
  kInterArea = 3,
  kInterLanczos4 = 4
};

/*! \brief `src` resized to rows x cols with `interp` (cv::resize's rules for uint8). */
Mat8 ResizeMat(const Mat8& src, int rows, int cols, int interp);

/*!
 * \brief The affine warp of `src` by the 2x3 matrix `m` (source -> destination pixel
 *  coordinates, row-major) into rows x cols: each output pixel samples the source at the inverse
 *  map of its position (cv::warpAffine's fixed-point positions, 1/32 pixel), with `interp`
 *  (area is bilinear here, as in OpenCV) and `fill` outside the source.
 */
Mat8 WarpAffineMat(const Mat8& src, const double m[6], int rows, int cols, int interp,
                   uint8_t fill);

/*! \brief `src` with `pad` pixels of value `fill` added on every side. */
Mat8 PadMat(const Mat8& src, int pad, uint8_t fill);

/*! \brief The h x w region of `src` whose top-left pixel is (y, x); it must lie inside. */
Mat8 CropMat(const Mat8& src, int y, int x, int h, int w);

}  // namespace io
}  // namespace symnet

#endif  // SYMNET_SRC_IO_IMAGE_RESAMPLE_H_
