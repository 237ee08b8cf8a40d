/*!
 * \brief ImageRecordIter: batches of decoded, augmented images from an MXNet .rec file, decoded
 *  by worker threads ahead of training (MXNet's mx.io.ImageRecordIter options).
 */
#ifndef SYMNET_IMAGE_RECORD_ITER_H_
#define SYMNET_IMAGE_RECORD_ITER_H_

#include <memory>
#include <string>
#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

struct ImageRecordIterParams {
  std::string path_imgrec, path_imgidx;  // the index is optional (a scan finds the records)
  Shape data_shape{3, 224, 224};         // (C, H, W) of each output image; C is 3 or 1
  int batch_size = 32;
  int label_width = 1;
  bool shuffle = false;
  uint64_t seed = 0;
  int num_parts = 1,
      part_index = 0;  // this process reads records i with i % num_parts == part_index
  int preprocess_threads = 4;
  int prefetch_buffer = 4;           // batches decoded ahead
  int resize = -1;                   // shorter side resized to this first (-1: no)
  bool rand_crop = false;            // random crop position (else centre)
  bool random_resized_crop = false;  // Inception-style: random area and aspect, then resize
  float min_random_area = 0.08f, max_random_area = 1.0f;
  float min_aspect_ratio = 3.0f / 4, max_aspect_ratio = 4.0f / 3;
  bool rand_mirror = false;
  float mean_r = 0, mean_g = 0, mean_b = 0, std_r = 1, std_g = 1, std_b = 1, scale = 1;
  DType dtype = DType::kFloat32;
  bool round_batch = true;  // pad the last batch from the start (pad says how many); else drop
  bool skip_bad = false;    // skip undecodable images with a warning instead of failing
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace symnet

#endif  // SYMNET_IMAGE_RECORD_ITER_H_
