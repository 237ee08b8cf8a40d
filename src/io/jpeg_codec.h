/*! \brief JPEG decoding with libjpeg(-turbo) whose errors become exceptions, not exit(). */
#ifndef SYMNET_SRC_IO_JPEG_CODEC_H_
#define SYMNET_SRC_IO_JPEG_CODEC_H_

#include <cstdint>
#include <string>
#include <vector>

namespace symnet {
namespace io {

/*! \brief An 8-bit interleaved RGB image (HWC). */
struct Image {
  int height = 0, width = 0;
  std::vector<uint8_t> rgb;
};

/*!
 * \brief The largest image (width x height) symnet decodes or resizes to: 2^28 pixels (768 MB of
 *  RGB) unless SYMNET_MAX_IMAGE_PIXELS says otherwise. A JPEG header may claim 65500 x 65500 in a
 *  few bytes; without a limit a hostile record would make the reader allocate 12 GB.
 */
int64_t MaxImagePixels();

/*! \brief Decodes JPEG bytes to RGB (grayscale is expanded). Returns false with `why` on failure.
 */
bool DecodeJPEG(const std::string& bytes, Image* out, std::string* why);
/*!
 * \brief Decodes JPEG bytes to one 8-bit channel (H x W): the luma plane libjpeg decodes, which
 *  is what OpenCV's IMREAD_GRAYSCALE (MXNet's imdecode with flag=0) returns. Same failures as
 *  DecodeJPEG.
 */
bool DecodeJPEGGray(const std::string& bytes, int* height, int* width, std::vector<uint8_t>* gray,
                    std::string* why);
/*! \brief Encodes RGB to JPEG at `quality` (for tests and tools). */
std::string EncodeJPEG(const Image& img, int quality);

}  // namespace io
}  // namespace symnet

#endif  // SYMNET_SRC_IO_JPEG_CODEC_H_
