/*! \brief libjpeg with a longjmp error manager: a broken image is a returned error. */
#include "jpeg_codec.h"

#include <jerror.h>  // JWRN_* codes; needs jpeglib.h first
#include <jpeglib.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>

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

bool DecodeJPEG(const std::string& bytes, Image* out, std::string* why) {
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
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  out->height = static_cast<int>(cinfo.output_height);
  out->width = static_cast<int>(cinfo.output_width);
  out->rgb.resize(static_cast<size_t>(out->height) * out->width * 3);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = &out->rgb[static_cast<size_t>(cinfo.output_scanline) * out->width * 3];
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (err.damaged) {
    *why = std::string("damaged JPEG data: ") + err.message;
    return false;
  }
  return true;
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
