/*! \brief libjpeg with a longjmp error manager: a broken image is a returned error. */
#include "jpeg_codec.h"

#include <jerror.h>  // JWRN_* codes; needs jpeglib.h first
#include <jpeglib.h>

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "symnet/base.h"

namespace symnet {
namespace io {

namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool damaged = false;  // a warning that means lost image data (set by OnMessage)
};

void OnError(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

// libjpeg reports damaged data (a file cut short, a bad Huffman code, a lost marker) as warnings
// and fills the missing part with grey: a silently wrong image, so these become errors. Only
// extraneous bytes between markers, common in real files, leave the image intact.
void OnMessage(j_common_ptr cinfo, int level) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  if (level >= 0 || cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA || err->damaged) return;
  (*cinfo->err->format_message)(cinfo, err->message);
  err->damaged = true;
}

}  // namespace

int64_t MaxImagePixels() {
  static const int64_t limit = [] {
    const char* env = std::getenv("SYMNET_MAX_IMAGE_PIXELS");
    if (!env || !*env) return int64_t{1} << 28;
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);  // NOLINT(runtime/int)
    SYMNET_CHECK(*end == '\0' && v > 0)
        << "SYMNET_MAX_IMAGE_PIXELS must be a positive whole number, not '" << env << "'";
    return static_cast<int64_t>(v);
  }();
  return limit;
}

namespace {

// One decoder for both outputs: libjpeg converts to `space` itself (for grayscale it keeps the
// luma plane, as OpenCV's IMREAD_GRAYSCALE does, instead of converting decoded RGB back).
bool Decode(const std::string& bytes, J_COLOR_SPACE space, int channels, int* height, int* width,
            std::vector<uint8_t>* pixels, std::string* why) {
  if (bytes.size() < 4 || static_cast<uint8_t>(bytes[0]) != 0xFF ||
      static_cast<uint8_t>(bytes[1]) != 0xD8) {
    *why = "not a JPEG image (no SOI marker)";
    return false;
  }
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = OnError;
  err.pub.emit_message = OnMessage;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    *why = std::string("JPEG decoding failed: ") + err.message;
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  jpeg_read_header(&cinfo, TRUE);
  const int64_t image_pixels = static_cast<int64_t>(cinfo.image_width) * cinfo.image_height;
  if (image_pixels > MaxImagePixels()) {
    jpeg_destroy_decompress(&cinfo);
    *why = "JPEG image of " + std::to_string(cinfo.image_width) + " x " +
           std::to_string(cinfo.image_height) + " pixels exceeds the limit of " +
           std::to_string(MaxImagePixels()) + " pixels (SYMNET_MAX_IMAGE_PIXELS)";
    return false;
  }
  cinfo.out_color_space = space;
  jpeg_start_decompress(&cinfo);
  *height = static_cast<int>(cinfo.output_height);
  *width = static_cast<int>(cinfo.output_width);
  const size_t row_bytes = static_cast<size_t>(*width) * channels;
  try {
    pixels->resize(static_cast<size_t>(*height) * row_bytes);
  } catch (const std::bad_alloc&) {
    jpeg_destroy_decompress(&cinfo);
    *why = "out of memory for a " + std::to_string(*width) + " x " + std::to_string(*height) +
           " image";
    return false;
  }
  // stop at the first sign of damage: the rest would be grey filler, and decoding it for a
  // hostile header that claims a huge image would take long
  while (cinfo.output_scanline < cinfo.output_height && !err.damaged) {
    JSAMPROW row = &(*pixels)[static_cast<size_t>(cinfo.output_scanline) * row_bytes];
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  if (!err.damaged) jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (err.damaged) {
    *why = std::string("damaged JPEG data: ") + err.message;
    return false;
  }
  return true;
}

}  // namespace

bool DecodeJPEG(const std::string& bytes, Image* out, std::string* why) {
  return Decode(bytes, JCS_RGB, 3, &out->height, &out->width, &out->rgb, why);
}

bool DecodeJPEGGray(const std::string& bytes, int* height, int* width, std::vector<uint8_t>* gray,
                    std::string* why) {
  return Decode(bytes, JCS_GRAYSCALE, 1, height, width, gray, why);
}

std::string EncodeJPEG(const Image& img, int quality) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* buf = nullptr;
  unsigned long size = 0;  // NOLINT(runtime/int): libjpeg's type
  jpeg_mem_dest(&cinfo, &buf, &size);
  cinfo.image_width = img.width;
  cinfo.image_height = img.height;
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row =
        const_cast<JSAMPROW>(&img.rgb[static_cast<size_t>(cinfo.next_scanline) * img.width * 3]);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::string out(reinterpret_cast<char*>(buf), size);
  jpeg_destroy_compress(&cinfo);
  std::free(buf);
  return out;
}

}  // namespace io
}  // namespace symnet
