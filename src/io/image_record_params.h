/*!
 * \brief ImageRecordIter's options as dmlc::Parameter structs, split the way MXNet 1.9.1 splits
 *  them (record reader, record order, batch, prefetcher, default augmenter, normalisation), with
 *  MXNet's option names, types and defaults. ParseImageRecordIterParams fills the public plain
 *  struct (include/symnet/image_record_iter.h) from string options.
 */
#ifndef SYMNET_SRC_IO_IMAGE_RECORD_PARAMS_H_
#define SYMNET_SRC_IO_IMAGE_RECORD_PARAMS_H_

#include <dmlc/parameter.h>

#include <map>
#include <string>
#include <vector>

#include "symnet/image_record_iter.h"

namespace symnet {
namespace io {

/*! \brief Where the records come from and how they are decoded (MXNet's ImageRecParserParam). */
struct RecordReaderParam : public dmlc::Parameter<RecordReaderParam> {
  std::string path_imglist, path_imgrec, path_imgidx, aug_seq;
  int label_width;
  Shape data_shape;
  int preprocess_threads;
  bool verbose;
  int num_parts, part_index, device_id;
  size_t shuffle_chunk_size;
  int shuffle_chunk_seed;
  std::string seed_aug;  // an int or "None" (MXNet's optional int; parsed by the caller)
  DMLC_DECLARE_PARAMETER(RecordReaderParam) {
    DMLC_DECLARE_FIELD(path_imglist)
        .set_default("")
        .describe(
            "An image list (.lst, as tools/im2rec.py writes it): tab-separated record index, "
            "one or more labels, relative path. Labels are then taken from it by record index.");
    DMLC_DECLARE_FIELD(path_imgrec).set_default("").describe("The RecordIO (.rec) file of images.");
    DMLC_DECLARE_FIELD(path_imgidx)
        .set_default("")
        .describe("The index (.idx) of the .rec file, as tools/im2rec.py writes it.");
    DMLC_DECLARE_FIELD(aug_seq)
        .set_default("aug_default")
        .describe(
            "Comma-separated names of the augmenters applied in turn; the other options "
            "configure them. 'aug_default' is the one augmenter.");
    DMLC_DECLARE_FIELD(label_width)
        .set_default(1)
        .set_lower_bound(1)
        .describe("How many labels each image has.");
    DMLC_DECLARE_FIELD(data_shape)
        .describe("The shape (channels, height, width) of one output image.");
    DMLC_DECLARE_FIELD(preprocess_threads)
        .set_default(4)
        .set_lower_bound(1)
        .describe("Threads decoding and augmenting images.");
    DMLC_DECLARE_FIELD(verbose).set_default(true).describe("Whether to report the set-up.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).describe(
        "Split the data into this many parts (for distributed training).");
    DMLC_DECLARE_FIELD(part_index).set_default(0).describe("Which part (from 0) to read.");
    DMLC_DECLARE_FIELD(device_id).set_default(0).describe(
        "Batches are allocated in cpu_pinned(device_id), or in cpu(0) for -1.");
    DMLC_DECLARE_FIELD(shuffle_chunk_size)
        .set_default(0)
        .describe("With shuffle: shuffle chunks of this many MB instead of single records.");
    DMLC_DECLARE_FIELD(shuffle_chunk_seed).set_default(0).describe("Seed of the chunk order.");
    DMLC_DECLARE_FIELD(seed_aug).set_default("None").describe(
        "Seed of the augmentations (reproducible ones), an int or None: from `seed`.");
  }
};

/*! \brief The order of the records (MXNet's ImageRecordParam). */
struct RecordOrderParam : public dmlc::Parameter<RecordOrderParam> {
  bool shuffle;
  int seed;
  bool verbose;
  DMLC_DECLARE_PARAMETER(RecordOrderParam) {
    DMLC_DECLARE_FIELD(shuffle).set_default(false).describe(
        "Whether to read the records in a new random order every epoch.");
    DMLC_DECLARE_FIELD(seed).set_default(0).describe("The random seed.");
    DMLC_DECLARE_FIELD(verbose).set_default(true).describe("Whether to report the set-up.");
  }
};

/*! \brief Batching (MXNet's BatchParam). */
struct BatchingParam : public dmlc::Parameter<BatchingParam> {
  int batch_size;
  bool round_batch;
  DMLC_DECLARE_PARAMETER(BatchingParam) {
    DMLC_DECLARE_FIELD(batch_size).describe("Images per batch.");
    DMLC_DECLARE_FIELD(round_batch)
        .set_default(true)
        .describe(
            "Whether the last, incomplete batch is filled up from the start of the data (its "
            "pad says how many); otherwise it is left out.");
  }
};

/*! \brief The prefetching thread and the output type (MXNet's PrefetcherParam). */
struct PrefetchParam : public dmlc::Parameter<PrefetchParam> {
  size_t prefetch_buffer;
  int ctx;
  int dtype;  // a DType, or -1 for None
  DMLC_DECLARE_PARAMETER(PrefetchParam) {
    DMLC_DECLARE_FIELD(prefetch_buffer).set_default(4).describe("Batches decoded ahead, at most.");
    DMLC_DECLARE_FIELD(ctx).add_enum("cpu", 1).add_enum("gpu", 2).set_default(2).describe(
        "What the batches feed: 'gpu' decodes ahead in a thread, 'cpu' decodes a batch "
        "when it is asked for (leaving the processors to the training).");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1)
        .add_enum("float32", static_cast<int>(DType::kFloat32))
        .add_enum("float64", static_cast<int>(DType::kFloat64))
        .add_enum("float16", static_cast<int>(DType::kFloat16))
        .add_enum("bfloat16", static_cast<int>(DType::kBFloat16))
        .add_enum("int64", static_cast<int>(DType::kInt64))
        .add_enum("int32", static_cast<int>(DType::kInt32))
        .add_enum("int8", static_cast<int>(DType::kInt8))
        .add_enum("uint8", static_cast<int>(DType::kUint8))
        .set_default(-1)
        .describe("The type of the data; None is float32.");
  }
};

/*! \brief The default augmenter (MXNet's DefaultImageAugmentParam). */
struct DefaultAugmentParam : public dmlc::Parameter<DefaultAugmentParam> {
  int resize;
  bool rand_crop, random_resized_crop;
  int max_rotate_angle;
  float max_aspect_ratio;
  std::string min_aspect_ratio;  // a float or "None" (MXNet's optional float; parsed by the caller)
  float max_shear_ratio;
  int max_crop_size, min_crop_size;
  float max_random_scale, min_random_scale, max_random_area, min_random_area;
  float max_img_size, min_img_size;
  float brightness, contrast, saturation, pca_noise;
  int random_h, random_s, random_l, rotate, fill_value, inter_method, pad;
  Shape data_shape;
  DMLC_DECLARE_PARAMETER(DefaultAugmentParam) {
    DMLC_DECLARE_FIELD(resize).set_default(-1).describe(
        "Resize the shorter side to this before the other augmentations (-1: no).");
    DMLC_DECLARE_FIELD(rand_crop).set_default(false).describe(
        "Crop at a random position instead of the centre.");
    DMLC_DECLARE_FIELD(random_resized_crop)
        .set_default(false)
        .describe(
            "Crop a region of random area (min/max_random_area) and aspect "
            "(min/max_aspect_ratio), resized to data_shape (the usual ImageNet training crop).");
    DMLC_DECLARE_FIELD(max_rotate_angle)
        .set_default(0)
        .describe("Rotate by a random whole number of degrees in [-v, v].");
    DMLC_DECLARE_FIELD(max_aspect_ratio)
        .set_default(0.0f)
        .describe(
            "Random aspect (width / height) change: in [1 - v, 1 + v] when min_aspect_ratio "
            "is None, else in [min_aspect_ratio, v].");
    DMLC_DECLARE_FIELD(min_aspect_ratio)
        .set_default("None")
        .describe(
            "Lower end of the random aspect range [min_aspect_ratio, max_aspect_ratio], a float "
            "or None.");
    DMLC_DECLARE_FIELD(max_shear_ratio)
        .set_default(0.0f)
        .describe("Shear (x, y) -> (x + m y, y) with m random in [-v, v].");
    DMLC_DECLARE_FIELD(max_crop_size)
        .set_default(-1)
        .describe(
            "Crop a random square of side in [min_crop_size, max_crop_size], resized to "
            "data_shape. Not with random_resized_crop.");
    DMLC_DECLARE_FIELD(min_crop_size).set_default(-1).describe("See max_crop_size.");
    DMLC_DECLARE_FIELD(max_random_scale)
        .set_default(1.0f)
        .describe(
            "Scale the image by s random in [min_random_scale, max_random_scale]. Not with "
            "random_resized_crop.");
    DMLC_DECLARE_FIELD(min_random_scale).set_default(1.0f).describe("See max_random_scale.");
    DMLC_DECLARE_FIELD(max_random_area)
        .set_default(1.0f)
        .describe(
            "random_resized_crop: the crop's area as a fraction of the image, random in "
            "[min_random_area, max_random_area].");
    DMLC_DECLARE_FIELD(min_random_area).set_default(1.0f).describe("See max_random_area.");
    DMLC_DECLARE_FIELD(max_img_size)
        .set_default(1e10f)
        .describe("Largest width and height after the resize and rotation augmentations.");
    DMLC_DECLARE_FIELD(min_img_size)
        .set_default(0.0f)
        .describe("Smallest width and height after the resize and rotation augmentations.");
    DMLC_DECLARE_FIELD(brightness)
        .set_default(0.0f)
        .describe("Multiply the pixels by 1 + b, b random in [-v, v].");
    DMLC_DECLARE_FIELD(contrast).set_default(0.0f).describe(
        "Scale the pixels' distance from the grey mean by 1 + c, c random in [-v, v].");
    DMLC_DECLARE_FIELD(saturation)
        .set_default(0.0f)
        .describe("Blend with the grey image: weight 1 + s, s random in [-v, v].");
    DMLC_DECLARE_FIELD(pca_noise).set_default(0.0f).describe(
        "Add AlexNet's PCA lighting noise with this standard deviation.");
    DMLC_DECLARE_FIELD(random_h).set_default(0).describe(
        "Add a random value in [-v, v] to the hue (H of HLS, 0..180).");
    DMLC_DECLARE_FIELD(random_s).set_default(0).describe(
        "Add a random value in [-v, v] to the saturation (S of HLS, 0..255).");
    DMLC_DECLARE_FIELD(random_l).set_default(0).describe(
        "Add a random value in [-v, v] to the lightness (L of HLS, 0..255).");
    DMLC_DECLARE_FIELD(rotate).set_default(-1).describe(
        "Rotate by this angle (when > 0) instead of a random one.");
    DMLC_DECLARE_FIELD(fill_value)
        .set_default(255)
        .describe("The value of pixels added by pad and by the affine transform.");
    DMLC_DECLARE_FIELD(data_shape).describe("The shape of one output image.");
    DMLC_DECLARE_FIELD(inter_method)
        .set_default(1)
        .describe(
            "Interpolation: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 9 auto "
            "(bicubic to enlarge, area to shrink, else bilinear), 10 random of 0-4.");
    DMLC_DECLARE_FIELD(pad).set_default(0).describe(
        "Add this many pixels of fill_value on every side.");
  }
};

/*! \brief Mirroring and normalisation (MXNet's ImageNormalizeParam). */
struct NormalizeParam : public dmlc::Parameter<NormalizeParam> {
  int seed;
  bool mirror, rand_mirror;
  std::string mean_img;
  float mean_r, mean_g, mean_b, mean_a, std_r, std_g, std_b, std_a, scale;
  float max_random_contrast, max_random_illumination;
  bool verbose;
  DMLC_DECLARE_PARAMETER(NormalizeParam) {
    DMLC_DECLARE_FIELD(seed).set_default(0).describe("The random seed.");
    DMLC_DECLARE_FIELD(mirror).set_default(false).describe("Flip every image left to right.");
    DMLC_DECLARE_FIELD(rand_mirror)
        .set_default(false)
        .describe("Flip images left to right with probability 1/2.");
    DMLC_DECLARE_FIELD(mean_img).set_default("").describe(
        "The mean image file, subtracted instead of mean_r/g/b; computed over the data "
        "and saved there when the file does not exist.");
    DMLC_DECLARE_FIELD(mean_r).set_default(0.0f).describe("Subtracted from the R channel.");
    DMLC_DECLARE_FIELD(mean_g).set_default(0.0f).describe("Subtracted from the G channel.");
    DMLC_DECLARE_FIELD(mean_b).set_default(0.0f).describe("Subtracted from the B channel.");
    DMLC_DECLARE_FIELD(mean_a).set_default(0.0f).describe("Subtracted from the alpha channel.");
    DMLC_DECLARE_FIELD(std_r).set_default(1.0f).describe("The R channel is divided by it.");
    DMLC_DECLARE_FIELD(std_g).set_default(1.0f).describe("The G channel is divided by it.");
    DMLC_DECLARE_FIELD(std_b).set_default(1.0f).describe("The B channel is divided by it.");
    DMLC_DECLARE_FIELD(std_a).set_default(1.0f).describe("The alpha channel is divided by it.");
    DMLC_DECLARE_FIELD(scale).set_default(1.0f).describe("Multiply the result by this.");
    DMLC_DECLARE_FIELD(max_random_contrast)
        .set_default(0.0f)
        .describe("Multiply the normalised image by 1 + c, c random in [-v, v].");
    DMLC_DECLARE_FIELD(max_random_illumination)
        .set_default(0.0f)
        .describe("Add i (scaled like the image), i random in [-v, v].");
    DMLC_DECLARE_FIELD(verbose).set_default(true).describe("Whether to report the set-up.");
  }
};

/*! \brief ImageRecordIterParams::FromStrings. */
ImageRecordIterParams ParseImageRecordIterParams(const std::map<std::string, std::string>& kwargs);
/*! \brief Every option name accepted, sorted. */
std::vector<std::string> ImageRecordIterOptionNames();

}  // namespace io
}  // namespace symnet

#endif  // SYMNET_SRC_IO_IMAGE_RECORD_PARAMS_H_
