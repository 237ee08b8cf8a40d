/*!
 * \brief ImageRecordIter: batches of decoded, augmented images from an MXNet .rec file, decoded
 *  by worker threads ahead of training, with every option of MXNet 1.9.1's mx.io.ImageRecordIter
 *  (its record reader, batch, prefetcher, default augmenter and normalisation parameters).
 *
 *  The options are plain fields here; ImageRecordIterParams::FromStrings parses them from
 *  strings the way MXNet's own iterator takes them ("data_shape" -> "(3,224,224)"), with an
 *  error naming an unknown option or a bad value. The option's meaning is documented at its
 *  field; docs/mxnet_compat.md lists where symnet's numbers differ from MXNet's.
 */
#ifndef SYMNET_IMAGE_RECORD_ITER_H_
#define SYMNET_IMAGE_RECORD_ITER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

struct ImageRecordIterParams {
  // ---- record reader (MXNet's ImageRecParserParam) ----
  std::string path_imglist;  // a .lst file: the labels come from it, looked up by record id
  std::string path_imgrec;
  std::string path_imgidx;  // optional: a scan finds the records; with it parts count records
  std::string aug_seq = "aug_default";  // comma-separated augmenters ("aug_default" only)
  int label_width = 1;
  Shape data_shape{3, 224, 224};      // (C, H, W) of each output image; C is 3 or 1
  int preprocess_threads = 4;         // decoding threads (at most the number of processors)
  bool verbose = true;                // report the reader's set-up through `log`
  int num_parts = 1, part_index = 0;  // part_index-th of num_parts contiguous parts (see .cc)
  int device_id = 0;                  // batches in cpu_pinned(device_id); -1: cpu(0)
  uint64_t shuffle_chunk_size = 0;    // MB; with shuffle and no .idx: shuffle by chunks
  int shuffle_chunk_seed = 0;         // seeds the order of those chunks
  std::optional<int> seed_aug;        // set: augmentation seeded per batch position (MXNet's)
  // ---- record order (ImageRecordParam) ----
  bool shuffle = false;
  uint64_t seed = 0;
  // ---- batches (BatchParam) ----
  int batch_size = 32;
  bool round_batch = true;  // pad the last batch from the start (pad says how many); else drop
  // ---- prefetcher (PrefetcherParam) ----
  int prefetch_buffer = 4;        // batches decoded ahead (0: decoded when asked for)
  std::string ctx = "gpu";        // "gpu": a thread decodes ahead; "cpu": batches decoded in Next()
  DType dtype = DType::kFloat32;  // uint8: raw pixels; int8: pixel - round(mean); else normalised
  // ---- default augmenter (DefaultImageAugmentParam; see src/io/image_augment.h) ----
  int resize = -1;  // shorter side resized to this first (-1: no)
  bool rand_crop = false;
  bool random_resized_crop = false;
  int max_rotate_angle = 0;
  float max_aspect_ratio = 0;
  std::optional<float> min_aspect_ratio;  // unset: aspect in [1 - max, 1 + max]
  float max_shear_ratio = 0;
  int max_crop_size = -1, min_crop_size = -1;
  float max_random_scale = 1, min_random_scale = 1;
  float max_random_area = 1, min_random_area = 1;
  float max_img_size = 1e10f, min_img_size = 0;
  float brightness = 0, contrast = 0, saturation = 0, pca_noise = 0;
  int random_h = 0, random_s = 0, random_l = 0;
  int rotate = -1;               // > 0: this angle instead of a random one
  std::vector<int> rotate_list;  // non-empty: one of these angles at random
  int fill_value = 255;
  int inter_method = 1;  // 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 9 auto, 10 random
  int pad = 0;
  // ---- normalisation (ImageNormalizeParam) ----
  bool mirror = false, rand_mirror = false;
  std::string mean_img;  // the mean image file (.nd); computed and saved there when missing
  float mean_r = 0, mean_g = 0, mean_b = 0, mean_a = 0;
  float std_r = 1, std_g = 1, std_b = 1, std_a = 1;
  float scale = 1;
  float max_random_contrast = 0, max_random_illumination = 0;
  // ---- symnet's own ----
  bool skip_bad = false;  // skip undecodable images with a warning instead of failing
  /*! \brief Where verbose messages go (unset: stderr). */
  std::function<void(const std::string&)> log;

  /*!
   * \brief Parses MXNet's string options (MXNet 1.9.1's names, defaults and value syntax) into
   *  the fields above. Throws symnet::Error naming an unknown option (with the accepted ones) or
   *  a value that does not parse or is out of range. data_shape and batch_size are required.
   */
  static ImageRecordIterParams FromStrings(const std::map<std::string, std::string>& kwargs);
  /*! \brief The option names FromStrings accepts, sorted. */
  static std::vector<std::string> OptionNames();
};

/*! \brief One batch: data (N, C, H, W) and label (N,) or (N, label_width); pad at the end. */
struct ImageBatch {
  NDArray data, label;
  int pad = 0;
  std::vector<uint64_t> ids;
};

class ImageRecordIter {
 public:
  explicit ImageRecordIter(const ImageRecordIterParams& params);
  ~ImageRecordIter();
  /*! \brief The next batch; false at the end of the epoch. */
  bool Next(ImageBatch* batch);
  /*! \brief Starts the next epoch (a new shuffle order). */
  void Reset();
  /*! \brief Jumps to the shuffle order of `epoch` (resuming training). */
  void SetEpoch(int epoch);
  size_t num_records() const;
  const ImageRecordIterParams& params() const;
  /*! \brief Records skipped as undecodable so far (with skip_bad). */
  size_t num_skipped() const;
  /*! \brief Batches decoded and waiting (at most prefetch_buffer). */
  size_t num_prefetched() const;
  /*! \brief The decoding threads used (preprocess_threads, at most the processors). */
  int num_threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace symnet

#endif  // SYMNET_IMAGE_RECORD_ITER_H_
