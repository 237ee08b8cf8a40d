/*!
 * \brief ImageRecordIter: a producer thread reads each batch's records, worker threads decode and
 *  augment them, and finished batches wait in a bounded queue (prefetch_buffer) so decoding
 *  overlaps training. Each sample's augmentation draws from a generator seeded by (seed, epoch,
 *  record), so runs are reproducible whatever the thread timing.
 */
#include "symnet/image_record_iter.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "image_augment.h"
#include "jpeg_codec.h"
#include "symnet/random.h"
#include "symnet/recordio.h"

namespace symnet {

struct ImageRecordIter::Impl {
  ImageRecordIterParams p;
  std::vector<size_t> offsets;  // records of this part
  int epoch = 0;
  std::vector<size_t> order;  // record positions (into offsets) for this epoch

  std::mutex mu;
  std::condition_variable cv;
  std::deque<ImageBatch> queue;
  bool producer_done = false, stop = false;
  std::exception_ptr error;
  std::thread producer;
  size_t skipped = 0;
  std::atomic<bool> warned_small{false};  // one warning per iterator for images scaled up

  void MakeOrder() {
    order.resize(offsets.size());
    std::iota(order.begin(), order.end(), 0);
    if (p.shuffle) std::shuffle(order.begin(), order.end(), std::mt19937_64(Mix64(p.seed + epoch)));
  }

  void Start() {
    MakeOrder();
    stop = producer_done = false;
    queue.clear();
    error = nullptr;
    producer = std::thread([this] { Produce(); });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    if (producer.joinable()) producer.join();
  }

  /*! \brief Decodes record `pos` into slot `k` of the batch; false if the image is bad. */
  bool DecodeInto(const std::string& rec, size_t pos, ImageBatch* b, int k, std::string* why) {
    ImageRecordHeader h;
    std::string payload;
    try {
      UnpackImageRecord(rec, &h, &payload);
    } catch (const Error& e) {
      *why = e.what();
      return false;
    }
    io::Image img;
    if (!io::DecodeJPEG(payload, &img, why)) return false;
    std::mt19937_64 rng(Mix64(p.seed ^ Mix64(static_cast<uint64_t>(epoch) * 1000003 + pos)));
    const size_t per = static_cast<size_t>(p.data_shape.Size());
    // runs inside an OpenMP loop, which an exception must not leave (that would terminate)
    io::AugmentNote note;
    try {
      io::AugmentToCHW(img, p, &rng, static_cast<float*>(b->data.dptr()) + per * k, &note);
    } catch (const std::exception& e) {
      *why = e.what();
      return false;
    }
    if (note.scaled_up && !warned_small.exchange(true)) {
      const std::string after = p.resize > 0 ? " after resize=" + std::to_string(p.resize) : "";
      std::fprintf(stderr,
                   "warning: %s: record %zu is %dx%d (height x width)%s, smaller than "
                   "data_shape %dx%d; such images are scaled up to fit (set resize= to choose "
                   "the scale; this warning is given once)\n",
                   p.path_imgrec.c_str(), pos, note.height, note.width, after.c_str(),
                   static_cast<int>(p.data_shape[1]), static_cast<int>(p.data_shape[2]));
    }
    float* lab = static_cast<float*>(b->label.dptr()) + static_cast<size_t>(k) * p.label_width;
    for (int j = 0; j < p.label_width; ++j)
      lab[j] = h.flag > 0 ? (j < static_cast<int>(h.labels.size()) ? h.labels[j] : 0.0f)
                          : (j == 0 ? h.label : 0.0f);
    b->ids[k] = h.id;
    return true;
  }

  void Produce() {
    try {
      RecordIOFile file(p.path_imgrec, 'r');
      const int n = p.batch_size;
      const Shape dshape{n, p.data_shape[0], p.data_shape[1], p.data_shape[2]};
      const Shape lshape = p.label_width == 1 ? Shape{n} : Shape{n, p.label_width};
      size_t cursor = 0;
      while (cursor < order.size()) {
        const size_t remaining = order.size() - cursor;
        if (remaining < static_cast<size_t>(n) && !p.round_batch) break;
        ImageBatch b;
        b.data = NDArray(dshape);
        b.label = NDArray(lshape);
        b.ids.assign(n, 0);
        b.pad = remaining < static_cast<size_t>(n) ? static_cast<int>(n - remaining) : 0;
        // read this batch's records (the last batch wraps around to the start)
        std::vector<std::string> recs(n);
        std::vector<size_t> pos(n);
        for (int k = 0; k < n; ++k) {
          pos[k] = order[(cursor + k) % order.size()];
          file.Seek(offsets[pos[k]]);
          if (!file.Read(&recs[k]))
            SYMNET_THROW << p.path_imgrec << ": record at offset " << offsets[pos[k]]
                         << " is missing";
        }
        cursor += std::min<size_t>(n, remaining);
        std::vector<std::string> why(n);
        std::vector<char> ok(n, 0);
#pragma omp parallel for num_threads(std::max(1, p.preprocess_threads)) schedule(dynamic)
        for (int k = 0; k < n; ++k) ok[k] = DecodeInto(recs[k], pos[k], &b, k, &why[k]);
        for (int k = 0; k < n; ++k) {
          // a bad image: fail naming it, or (skip_bad) refill the slot with the next good record
          while (!ok[k]) {
            SYMNET_CHECK(p.skip_bad)
                << p.path_imgrec << ": record " << pos[k] << " (offset " << offsets[pos[k]]
                << "): " << why[k] << " (skip_bad=True skips such records)";
            std::fprintf(stderr, "warning: %s: skipping record %zu: %s\n", p.path_imgrec.c_str(),
                         pos[k], why[k].c_str());
            ++skipped;
            SYMNET_CHECK(skipped < offsets.size()) << p.path_imgrec << ": no decodable image left";
            pos[k] = order[cursor % order.size()];
            ++cursor;
            file.Seek(offsets[pos[k]]);
            file.Read(&recs[k]);
            ok[k] = DecodeInto(recs[k], pos[k], &b, k, &why[k]);
          }
        }
        if (p.dtype != DType::kFloat32) b.data = b.data.AsType(p.dtype);
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] {
          return stop || queue.size() < static_cast<size_t>(std::max(1, p.prefetch_buffer));
        });
        if (stop) return;
        queue.push_back(std::move(b));
        cv.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu);
    producer_done = true;
    cv.notify_all();
  }
};

ImageRecordIter::ImageRecordIter(const ImageRecordIterParams& params)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.p = params;
  const auto& p = s.p;
  SYMNET_CHECK(p.data_shape.ndim() == 3 && (p.data_shape[0] == 3 || p.data_shape[0] == 1))
      << "ImageRecordIter: data_shape must be (3, H, W) or (1, H, W), got " << p.data_shape;
  SYMNET_CHECK(p.batch_size > 0 && p.label_width > 0)
      << "ImageRecordIter: batch_size and label_width must be positive, got batch_size "
      << p.batch_size << " and label_width " << p.label_width;
  SYMNET_CHECK(p.num_parts >= 1 && p.part_index >= 0 && p.part_index < p.num_parts)
      << "ImageRecordIter: part_index " << p.part_index
      << " is not in [0, num_parts=" << p.num_parts << ")";
  const std::vector<size_t> all =
      p.path_imgidx.empty() ? ScanRecordOffsets(p.path_imgrec) : ReadIndexFile(p.path_imgidx);
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % p.num_parts) == p.part_index) s.offsets.push_back(all[i]);
  SYMNET_CHECK(!s.offsets.empty())
      << "ImageRecordIter: '" << p.path_imgrec << "' has no records for part " << p.part_index
      << " of " << p.num_parts;
  SYMNET_CHECK(p.round_batch || s.offsets.size() >= static_cast<size_t>(p.batch_size))
      << "ImageRecordIter: batch_size " << p.batch_size << " does not fit the " << s.offsets.size()
      << " records of '" << p.path_imgrec << "' (part " << p.part_index << " of " << p.num_parts
      << "); with round_batch=False no batch would be left";
  s.Start();
}

ImageRecordIter::~ImageRecordIter() { impl_->Stop(); }

bool ImageRecordIter::Next(ImageBatch* batch) {
  Impl& s = *impl_;
  std::unique_lock<std::mutex> lock(s.mu);
  s.cv.wait(lock, [&] { return !s.queue.empty() || s.producer_done; });
  if (!s.queue.empty()) {
    *batch = std::move(s.queue.front());
    s.queue.pop_front();
    s.cv.notify_all();
    return true;
  }
  if (s.error) std::rethrow_exception(s.error);
  return false;
}

void ImageRecordIter::Reset() { SetEpoch(impl_->epoch + 1); }

void ImageRecordIter::SetEpoch(int epoch) {
  impl_->Stop();
  impl_->epoch = epoch;
  impl_->Start();
}

size_t ImageRecordIter::num_records() const { return impl_->offsets.size(); }
const ImageRecordIterParams& ImageRecordIter::params() const { return impl_->p; }
size_t ImageRecordIter::num_skipped() const { return impl_->skipped; }

}  // namespace symnet
