/*!
 * \brief Fuzz target: one image record as ImageRecordIter decodes it: MXNet's header, the JPEG
 *  payload, then three augmentation settings (centre crop; resize + random crop + mirror +
 *  normalisation; Inception-style random resized crop to grey).
 */
#include <cstdlib>
#include <random>

#include "fuzz_util.h"
#include "src/io/image_augment.h"
#include "src/io/jpeg_codec.h"
#include "symnet/recordio.h"

namespace {

symnet::ImageRecordIterParams Setting(int k) {
  symnet::ImageRecordIterParams p;
  if (k == 0) {
    p.data_shape = symnet::Shape{3, 16, 16};
  } else if (k == 1) {
    p.data_shape = symnet::Shape{3, 12, 12};
    p.resize = 20;
    p.rand_crop = p.rand_mirror = true;
    p.mean_r = 123.7f, p.mean_g = 116.3f, p.mean_b = 103.5f;
    p.std_r = 58.4f, p.std_g = 57.1f, p.std_b = 57.4f;
  } else {
    p.data_shape = symnet::Shape{1, 8, 8};
    p.random_resized_crop = true;
  }
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // 4 Mpixel images at most (12 MB): a header claiming 65500 x 65500 must be refused, not tried
  setenv("SYMNET_MAX_IMAGE_PIXELS", "4194304", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  symnet::fuzz::ExpectOnlySymnetErrors([&] {
    symnet::ImageRecordHeader h;
    std::string payload;
    symnet::UnpackImageRecord(symnet::fuzz::AsString(data, size), &h, &payload);
    symnet::io::Image img;
    std::string why;
    if (!symnet::io::DecodeJPEG(payload, &img, &why)) {
      if (why.empty()) __builtin_trap();  // a refusal always says why
      return;
    }
    if (img.width <= 0 || img.height <= 0 ||
        img.rgb.size() != static_cast<size_t>(img.width) * img.height * 3)
      __builtin_trap();
    for (int k = 0; k < 3; ++k) {
      const symnet::ImageRecordIterParams p = Setting(k);
      std::vector<float> out(static_cast<size_t>(p.data_shape.Size()));
      std::mt19937_64 rng(k);
      symnet::io::AugmentToCHW(img, p, &rng, out.data());
    }
  });
  return 0;
}
