/*!
 * \brief ImageRecordIter: reads each batch's records, decodes and augments them on OpenMP
 *  threads, and (ctx='gpu', the default) a producer thread keeps up to prefetch_buffer finished
 *  batches in a queue so that decoding overlaps training; with ctx='cpu' a batch is decoded when
 *  it is asked for. Each sample's augmentation draws from a generator seeded by (seed, epoch,
 *  record), or with seed_aug as MXNet seeds it (by position), so runs are reproducible whatever
 *  the thread timing.
 *
 *  Parts (num_parts/part_index) are MXNet's: without an .idx the file is cut into num_parts
 *  equal byte ranges (rounded up to 4 bytes) and a record belongs to the range its first byte
 *  is in; with an .idx the records (sorted by offset) are cut into num_parts runs of
 *  ceil(n / num_parts).
 */
#include "symnet/image_record_iter.h"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <fstream>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "image_augment.h"
#include "jpeg_codec.h"
#include "symnet/ndarray_io.h"
#include "symnet/random.h"
#include "symnet/recordio.h"

namespace symnet {

namespace {

constexpr int kSeedMagic = 111;  // MXNet's offset of seed_aug seeds

/*! \brief record index -> label_width labels, from a .lst file. */
std::unordered_map<uint64_t, std::vector<float>> ReadImageList(const std::string& path,
                                                               int label_width) {
  std::ifstream in(path);
  SYMNET_CHECK(in.good()) << "ImageRecordIter: cannot open path_imglist '" << path << "'";
  std::unordered_map<uint64_t, std::vector<float>> labels;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream fields(line);
    std::string index;
    if (!(fields >> index)) continue;  // an empty line
    std::vector<float> v(label_width);
    bool ok = true;
    uint64_t id = 0;
    try {
      size_t used = 0;
      id = std::stoull(index, &used);
      ok = used == index.size();
    } catch (const std::exception&) {
      ok = false;
    }
    for (int k = 0; ok && k < label_width; ++k) {
      std::string f;
      if (!(fields >> f)) {
        ok = false;
        break;
      }
      try {
        size_t used = 0;
        v[k] = std::stof(f, &used);
        ok = used == f.size();
      } catch (const std::exception&) {
        ok = false;
      }
    }
    SYMNET_CHECK(ok) << "ImageRecordIter: " << path << " line " << lineno << ": expected a record "
                     << "index and " << label_width << " label(s) (label_width), tab-separated, "
                     << "then the image path; got '" << line << "'";
    labels[id] = std::move(v);
  }
  return labels;
}

size_t FileSize(const std::string& path) {
  struct stat st;
  SYMNET_CHECK(::stat(path.c_str(), &st) == 0)
      << "ImageRecordIter: cannot read '" << path << "' (path_imgrec)";
  return static_cast<size_t>(st.st_size);
}

std::string ShapeText(const Shape& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

}  // namespace

struct ImageRecordIter::Impl {
  ImageRecordIterParams p;
  std::vector<size_t> offsets;  // records of this part, in file order
  // chunked shuffle (shuffle_chunk_size): each record's sub-part and window within it
  int num_sub = 1;
  std::vector<int> sub_of, window_of;
  std::unordered_map<uint64_t, std::vector<float>> label_map;
  bool has_label_map = false;
  std::vector<float> mean_image;  // (C, H, W), when mean_img is used
  int num_augmenters = 1;
  int threads = 1;
  bool sync = false;  // decode in Next() (ctx='cpu' or prefetch_buffer=0)
  int epoch = 0;
  std::vector<size_t> order;  // record positions (into offsets) for this epoch

  // the batch being assembled: its position in the epoch's order
  size_t cursor = 0;
  std::unique_ptr<RecordIOFile> file;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<ImageBatch> queue;
  bool producer_done = false, stop = false;
  std::exception_ptr error;
  std::thread producer;
  std::atomic<size_t> skipped{0};
  std::atomic<bool> warned_small{false};  // one warning per iterator for images scaled up

  void Log(const std::string& msg) const {
    if (!p.verbose) return;
    if (p.log) {
      p.log(msg);
    } else {
      std::fprintf(stderr, "%s\n", msg.c_str());
    }
  }

  int Channels() const { return static_cast<int>(p.data_shape[0]); }
  int Height() const { return static_cast<int>(p.data_shape[1]); }
  int Width() const { return static_cast<int>(p.data_shape[2]); }

  void MakeOrder() {
    const size_t n = offsets.size();
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    if (!p.shuffle) return;
    if (num_sub <= 1 && sub_of.empty()) {
      std::shuffle(order.begin(), order.end(), std::mt19937_64(Mix64(p.seed + epoch)));
      return;
    }
    // chunks: the sub-parts in a random order (shuffle_chunk_seed), each read window by window
    // with the records of a window shuffled (seed)
    std::vector<int> subs(num_sub);
    std::iota(subs.begin(), subs.end(), 0);
    std::shuffle(subs.begin(), subs.end(),
                 std::mt19937_64(Mix64(static_cast<uint64_t>(p.shuffle_chunk_seed) ^
                                       Mix64(static_cast<uint64_t>(epoch) + 0x51ed27u))));
    std::mt19937_64 rng(Mix64(p.seed + epoch));
    order.clear();
    for (int s : subs) {
      size_t i = 0;
      while (i < n) {
        if (sub_of[i] != s) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < n && sub_of[j] == s && window_of[j] == window_of[i]) ++j;
        const size_t start = order.size();
        for (size_t k = i; k < j; ++k) order.push_back(k);
        std::shuffle(order.begin() + start, order.end(), rng);
        i = j;
      }
    }
  }

  void Start() {
    MakeOrder();
    cursor = 0;
    stop = producer_done = false;
    queue.clear();
    error = nullptr;
    if (sync) {
      if (!file) file = std::make_unique<RecordIOFile>(p.path_imgrec, 'r');
    } else {
      producer = std::thread([this] { Produce(); });
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    if (producer.joinable()) producer.join();
  }

  /*!
   * \brief The augmentation generator of a record. With seed_aug, MXNet's: seeded by
   *  seed_aug + 111 + the record's place in what MXNet decodes at once: the part's records in
   *  file order (a .rec read whole, up to 64 MB), or the slot in the batch (with an .idx, whose
   *  reader reads a batch at a time, and for the records a padded batch takes from the start);
   *  `place` overrides it. Otherwise seeded by (seed, epoch, record).
   */
  io::AugRandom MakeRandom(size_t pos, int slot, bool wrapped, int64_t place = -1) const {
    if (p.seed_aug.has_value()) {
      uint64_t idx = (!p.path_imgidx.empty() || wrapped) ? static_cast<uint64_t>(slot) : pos;
      if (place >= 0) idx = static_cast<uint64_t>(place);
      return io::AugRandom(idx + static_cast<uint64_t>(static_cast<int64_t>(*p.seed_aug)) +
                           kSeedMagic);
    }
    return io::AugRandom(Mix64(p.seed ^ Mix64(static_cast<uint64_t>(epoch) * 1000003 + pos)));
  }

  /*! \brief Decodes and augments one record's image into `img`; false (with why) if it is bad. */
  bool DecodeAugment(const std::string& payload, io::AugRandom* rng, io::Mat8* img,
                     std::string* why, io::AugmentNote* note) const {
    if (Channels() == 1) {
      io::Mat8 g;
      g.channels = 1;
      if (!io::DecodeJPEGGray(payload, &g.rows, &g.cols, &g.data, why)) return false;
      *img = std::move(g);
    } else {
      io::Image rgb;
      if (!io::DecodeJPEG(payload, &rgb, why)) return false;
      img->rows = rgb.height;
      img->cols = rgb.width;
      img->channels = 3;
      img->data = std::move(rgb.rgb);
    }
    // runs inside an OpenMP loop, which an exception must not leave (that would terminate)
    try {
      for (int a = 0; a < num_augmenters; ++a) *img = io::DefaultAugment(*img, p, rng, note);
    } catch (const std::exception& e) {
      *why = e.what();
      return false;
    }
    if (num_augmenters == 0 && (img->rows != Height() || img->cols != Width())) {
      *why = "the image is " + std::to_string(img->rows) + " x " + std::to_string(img->cols) +
             " (height x width) and aug_seq is empty, so it is not cropped to data_shape " +
             ShapeText(p.data_shape);
      return false;
    }
    return true;
  }

  /*! \brief The labels of a record into `lab` (label_width floats); errors are the set-up's
   *  (a record without its .lst line, a label count unlike label_width), not the record's. */
  void Labels(const ImageRecordHeader& h, size_t pos, float* lab) const {
    if (has_label_map) {
      auto it = label_map.find(h.id);
      SYMNET_CHECK(it != label_map.end())
          << "ImageRecordIter: record " << pos << " of '" << p.path_imgrec << "' has id " << h.id
          << ", which path_imglist '" << p.path_imglist << "' does not list";
      std::copy(it->second.begin(), it->second.end(), lab);
    } else if (h.flag > 0) {
      SYMNET_CHECK(static_cast<int>(h.flag) == p.label_width)
          << "ImageRecordIter: record " << pos << " of '" << p.path_imgrec << "' has " << h.flag
          << " labels but label_width is " << p.label_width;
      std::copy(h.labels.begin(), h.labels.begin() + p.label_width, lab);
    } else {
      SYMNET_CHECK(p.label_width == 1)
          << "ImageRecordIter: record " << pos << " of '" << p.path_imgrec
          << "' has one label but label_width is " << p.label_width
          << " (more labels per image come from path_imglist or records packed with several)";
      lab[0] = h.label;
    }
  }

  /*! \brief Reads, decodes and augments one record into slot k; false (with why) if bad. */
  bool Sample(const std::string& rec, size_t pos, int k, bool wrapped, ImageBatch* b, void* data,
              std::string* why) {
    ImageRecordHeader h;
    std::string payload;
    try {
      UnpackImageRecord(rec, &h, &payload);
    } catch (const Error& e) {
      *why = e.what();
      return false;
    }
    io::AugRandom rng = MakeRandom(pos, k, wrapped);
    io::Mat8 img;
    io::AugmentNote note;
    if (!DecodeAugment(payload, &rng, &img, why, &note)) return false;
    if (note.scaled_up && !warned_small.exchange(true)) {
      const std::string after = p.resize > 0 ? " after resize=" + std::to_string(p.resize) : "";
      std::fprintf(stderr,
                   "warning: %s: record %zu is %dx%d (height x width)%s, smaller than "
                   "data_shape %dx%d; such images are scaled up to fit (set resize= to choose "
                   "the scale; this warning is given once)\n",
                   p.path_imgrec.c_str(), pos, note.height, note.width, after.c_str(), Height(),
                   Width());
    }
    const DType t = p.dtype == DType::kUint8 || p.dtype == DType::kInt8 ? p.dtype : DType::kFloat32;
    const size_t per = static_cast<size_t>(p.data_shape.Size());
    void* slot = t == DType::kFloat32 ? static_cast<void*>(static_cast<float*>(data) + per * k)
                                      : static_cast<void*>(static_cast<uint8_t*>(data) + per * k);
    io::WriteCHW(img, p, &rng, mean_image.empty() ? nullptr : mean_image.data(), t, slot);
    b->ids[k] = h.id;
    return true;
  }

  /*! \brief The next batch of the epoch from `f`, or false at its end. */
  bool MakeBatch(RecordIOFile* f, ImageBatch* out) {
    const int n = p.batch_size;
    const size_t total = order.size();
    if (cursor >= total) return false;
    const size_t remaining = total - cursor;
    if (remaining < static_cast<size_t>(n) && !p.round_batch) return false;
    const Shape dshape{n, p.data_shape[0], p.data_shape[1], p.data_shape[2]};
    const Shape lshape = p.label_width == 1 ? Shape{n} : Shape{n, p.label_width};
    const Device dev = p.device_id >= 0 ? Device{Device::kCPUPinned, p.device_id} : Device::CPU();
    ImageBatch b;
    const bool direct = p.dtype == DType::kUint8 || p.dtype == DType::kInt8;
    NDArray data(dshape, dev, direct ? p.dtype : DType::kFloat32);
    b.label = NDArray(lshape, dev, DType::kFloat32);
    b.ids.assign(n, 0);
    b.pad = remaining < static_cast<size_t>(n) ? static_cast<int>(n - remaining) : 0;
    // read this batch's records (the last batch wraps around to the start)
    std::vector<std::string> recs(n);
    std::vector<size_t> pos(n);
    std::vector<char> wrapped(n);
    for (int k = 0; k < n; ++k) {
      wrapped[k] = cursor + k >= total;
      pos[k] = order[(cursor + k) % total];
      f->Seek(offsets[pos[k]]);
      if (!f->Read(&recs[k]))
        SYMNET_THROW << p.path_imgrec << ": record at offset " << offsets[pos[k]] << " is missing";
    }
    cursor += std::min<size_t>(n, remaining);
    // labels first, in order: a label that does not fit is an error of the set-up
    float* lab = static_cast<float*>(b.label.dptr());
    auto label_of = [&](int k) {
      ImageRecordHeader h;
      std::string payload;
      try {
        UnpackImageRecord(recs[k], &h, &payload);
      } catch (const Error&) {
        return;  // a bad record: Sample says why
      }
      Labels(h, pos[k], lab + static_cast<size_t>(k) * p.label_width);
    };
    for (int k = 0; k < n; ++k) label_of(k);
    std::vector<std::string> why(n);
    std::vector<char> ok(n, 0);
    void* dptr = data.dptr();
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int k = 0; k < n; ++k) ok[k] = Sample(recs[k], pos[k], k, wrapped[k], &b, dptr, &why[k]);
    for (int k = 0; k < n; ++k) {
      // a bad image: fail naming it, or (skip_bad) refill the slot with the next good record
      while (!ok[k]) {
        SYMNET_CHECK(p.skip_bad) << p.path_imgrec << ": record " << pos[k] << " (offset "
                                 << offsets[pos[k]] << "): " << why[k]
                                 << " (skip_bad=True skips such records)";
        std::fprintf(stderr, "warning: %s: skipping record %zu: %s\n", p.path_imgrec.c_str(),
                     pos[k], why[k].c_str());
        const size_t s = ++skipped;
        SYMNET_CHECK(s < offsets.size()) << p.path_imgrec << ": no decodable image left";
        pos[k] = order[cursor % total];
        ++cursor;
        f->Seek(offsets[pos[k]]);
        f->Read(&recs[k]);
        label_of(k);
        ok[k] = Sample(recs[k], pos[k], k, wrapped[k], &b, dptr, &why[k]);
      }
    }
    b.data = (direct || p.dtype == DType::kFloat32) ? data : data.AsType(p.dtype);
    *out = std::move(b);
    return true;
  }

  void Produce() {
    try {
      RecordIOFile f(p.path_imgrec, 'r');
      while (true) {
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] {
            return stop || queue.size() < static_cast<size_t>(std::max(1, p.prefetch_buffer));
          });
          if (stop) return;
        }
        ImageBatch b;
        if (!MakeBatch(&f, &b)) break;
        std::lock_guard<std::mutex> lock(mu);
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

  /*! \brief The part's records (see the file comment) and, for chunked shuffling, their
   *  sub-parts and windows. */
  void SelectRecords() {
    const bool indexed = !p.path_imgidx.empty();
    std::vector<size_t> all =
        indexed ? ReadIndexFile(p.path_imgidx) : ScanRecordOffsets(p.path_imgrec);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    const size_t parts = static_cast<size_t>(p.num_parts), part = static_cast<size_t>(p.part_index);
    if (indexed) {
      const size_t step = (all.size() + parts - 1) / parts;
      const size_t begin = std::min(all.size(), step * part);
      const size_t end = std::min(all.size(), begin + step);
      offsets.assign(all.begin() + begin, all.begin() + end);
      return;
    }
    const size_t bytes = FileSize(p.path_imgrec);
    auto step_for = [&](size_t splits) {
      const size_t step = (bytes + splits - 1) / splits;
      return std::max<size_t>(4, (step + 3) / 4 * 4);
    };
    size_t subs = 1;
    if (p.shuffle && p.shuffle_chunk_size > 0) {
      // as many sub-parts as chunks fit (10% more), visited in a random order
      subs = static_cast<size_t>(std::ceil(
          static_cast<double>(bytes) * 1.1 /
          (static_cast<double>(parts) * static_cast<double>(p.shuffle_chunk_size << 20))));
      subs = std::max<size_t>(subs, 1);
    }
    const size_t step = step_for(parts * subs);
    // a window: what MXNet reads and shuffles at once (chunk_size / 8 MB, at least 8 MB)
    const size_t window = std::max<size_t>(p.shuffle_chunk_size << 17, size_t{8} << 20);
    for (size_t off : all) {
      const size_t split = off / step;
      if (split / subs != part) continue;
      offsets.push_back(off);
      if (subs > 1) {
        const size_t sub = split % subs;
        sub_of.push_back(static_cast<int>(sub));
        window_of.push_back(static_cast<int>((off - split * step) / window));
      }
    }
    num_sub = static_cast<int>(subs);
    if (subs > 1)
      Log("ImageRecordIter: shuffling " + std::to_string(subs) + " chunks of about " +
          std::to_string(p.shuffle_chunk_size) + " MB of part " + std::to_string(p.part_index));
  }

  /*! \brief Loads the mean image, or computes it over this part (unshuffled, augmented, with
   *  mean_r/g/b and std) and saves it (MXNet's .nd list format, one array named "mean_img"). */
  void PrepareMeanImage() {
    if (p.mean_img.empty() || p.dtype == DType::kUint8) return;
    const Shape want{p.data_shape[0], p.data_shape[1], p.data_shape[2]};
    std::ifstream probe(p.mean_img, std::ios::binary);
    if (probe.good()) {
      probe.close();
      std::vector<NDArray> arrays;
      std::vector<std::string> names;
      LoadNDArrays(p.mean_img, &arrays, &names);
      SYMNET_CHECK(arrays.size() == 1) << "ImageRecordIter: mean_img '" << p.mean_img << "' holds "
                                       << arrays.size() << " arrays; a mean image file holds one";
      SYMNET_CHECK(arrays[0].shape() == want)
          << "ImageRecordIter: mean_img '" << p.mean_img << "' is of shape " << arrays[0].shape()
          << ", not data_shape " << want;
      const NDArray f = arrays[0].AsType(DType::kFloat32);
      const float* v = static_cast<const float*>(f.dptr());
      mean_image.assign(v, v + want.Size());
      Log("ImageRecordIter: loaded the mean image " + p.mean_img);
      return;
    }
    Log("ImageRecordIter: " + p.mean_img + " does not exist: computing the mean image over the " +
        std::to_string(offsets.size()) + " images of '" + p.path_imgrec + "'");
    const size_t per = static_cast<size_t>(want.Size());
    std::vector<double> sum(per, 0.0);
    RecordIOFile f(p.path_imgrec, 'r');
    const size_t chunk = 256;
    size_t counted = 0;
    for (size_t begin = 0; begin < offsets.size(); begin += chunk) {
      const size_t m = std::min(chunk, offsets.size() - begin);
      std::vector<std::string> recs(m);
      for (size_t i = 0; i < m; ++i) {
        f.Seek(offsets[begin + i]);
        f.Read(&recs[i]);
      }
      std::vector<float> out(per * m);
      std::vector<char> ok(m, 0);
      std::vector<std::string> why(m);
#pragma omp parallel for num_threads(threads) schedule(dynamic)
      for (int i = 0; i < static_cast<int>(m); ++i) {
        ImageRecordHeader h;
        std::string payload;
        try {
          UnpackImageRecord(recs[i], &h, &payload);
        } catch (const std::exception& e) {
          why[i] = e.what();
          continue;
        }
        // MXNet computes the mean in chunks placed after a batch's slots
        const size_t q = begin + i, b = static_cast<size_t>(p.batch_size);
        io::AugRandom rng = MakeRandom(
            q, 0, false, static_cast<int64_t>(p.path_imgidx.empty() ? b + q : b + q % b));
        io::Mat8 img;
        if (!DecodeAugment(payload, &rng, &img, &why[i], nullptr)) continue;
        io::WriteCHW(img, p, &rng, nullptr, DType::kFloat32, out.data() + per * i);
        ok[i] = 1;
      }
      for (size_t i = 0; i < m; ++i) {
        if (!ok[i]) {
          SYMNET_CHECK(p.skip_bad)
              << p.path_imgrec << ": record " << begin + i << " (offset " << offsets[begin + i]
              << "): " << why[i] << " (skip_bad=True skips such records)";
          continue;
        }
        const float* o = out.data() + per * i;
        for (size_t j = 0; j < per; ++j) sum[j] += o[j];
        ++counted;
      }
    }
    SYMNET_CHECK(counted > 0) << "ImageRecordIter: no image to compute the mean image from";
    mean_image.resize(per);
    for (size_t j = 0; j < per; ++j)
      mean_image[j] = static_cast<float>(sum[j] / static_cast<double>(counted));
    NDArray arr = NDArray::FromBuffer(mean_image.data(), want, DType::kFloat32, DType::kFloat32);
    SaveNDArrays(p.mean_img, {arr}, {"mean_img"});
    Log("ImageRecordIter: saved the mean image of " + std::to_string(counted) + " images to " +
        p.mean_img);
  }
};

namespace {

/*! \brief The option combinations MXNet refuses or that cannot work, with what to change. */
void Validate(const ImageRecordIterParams& p) {
  const char* const w = "ImageRecordIter: ";
  SYMNET_CHECK(p.data_shape.ndim() == 3 && (p.data_shape[0] == 3 || p.data_shape[0] == 1))
      << w << "data_shape must be (3, H, W) or (1, H, W), got " << p.data_shape;
  SYMNET_CHECK(p.data_shape[1] > 0 && p.data_shape[2] > 0)
      << w << "data_shape must have a positive height and width, got " << p.data_shape;
  SYMNET_CHECK(p.batch_size > 0 && p.label_width > 0)
      << w << "batch_size and label_width must be positive, got batch_size " << p.batch_size
      << " and label_width " << p.label_width;
  SYMNET_CHECK(p.num_parts >= 1 && p.part_index >= 0 && p.part_index < p.num_parts)
      << w << "part_index " << p.part_index << " is not in [0, num_parts=" << p.num_parts << ")";
  SYMNET_CHECK(!p.path_imgrec.empty()) << w << "path_imgrec (the .rec file) is required";
  SYMNET_CHECK(p.preprocess_threads >= 1)
      << w << "preprocess_threads must be at least 1, got " << p.preprocess_threads;
  SYMNET_CHECK(p.prefetch_buffer >= 0)
      << w << "prefetch_buffer must be 0 or more, got " << p.prefetch_buffer;
  SYMNET_CHECK(p.ctx == "cpu" || p.ctx == "gpu")
      << w << "ctx must be 'cpu' or 'gpu', got '" << p.ctx << "'";
  SYMNET_CHECK(p.device_id >= -1) << w << "device_id must be -1 or a device, got " << p.device_id;
  const int im = p.inter_method;
  SYMNET_CHECK((im >= 0 && im <= 4) || im == 9 || im == 10)
      << w << "inter_method must be 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area), 4 "
      << "(Lanczos), 9 (auto) or 10 (random), got " << im;
  SYMNET_CHECK(p.resize == -1 || p.resize > 0)
      << w << "resize must be positive (or -1 for none), got " << p.resize;
  SYMNET_CHECK(p.max_rotate_angle >= 0)
      << w << "max_rotate_angle must be 0 or more, got " << p.max_rotate_angle;
  SYMNET_CHECK(p.max_shear_ratio >= 0)
      << w << "max_shear_ratio must be 0 or more, got " << p.max_shear_ratio;
  SYMNET_CHECK(p.pad >= 0) << w << "pad must be 0 or more, got " << p.pad;
  SYMNET_CHECK(p.fill_value >= 0 && p.fill_value <= 255)
      << w << "fill_value must be in [0, 255], got " << p.fill_value;
  SYMNET_CHECK(p.random_h >= 0 && p.random_s >= 0 && p.random_l >= 0)
      << w << "random_h, random_s and random_l must be 0 or more, got " << p.random_h << ", "
      << p.random_s << ", " << p.random_l;
  SYMNET_CHECK(p.brightness >= 0 && p.contrast >= 0 && p.saturation >= 0 && p.pca_noise >= 0)
      << w << "brightness, contrast, saturation and pca_noise must be 0 or more, got "
      << p.brightness << ", " << p.contrast << ", " << p.saturation << ", " << p.pca_noise;
  SYMNET_CHECK(p.max_random_contrast >= 0 && p.max_random_illumination >= 0)
      << w << "max_random_contrast and max_random_illumination must be 0 or more";
  SYMNET_CHECK(p.min_random_scale > 0 && p.min_random_scale <= p.max_random_scale)
      << w << "need 0 < min_random_scale <= max_random_scale, got " << p.min_random_scale << " and "
      << p.max_random_scale;
  SYMNET_CHECK(p.min_random_area > 0 && p.min_random_area <= p.max_random_area)
      << w << "need 0 < min_random_area <= max_random_area, got " << p.min_random_area << " and "
      << p.max_random_area;
  const float lo = p.min_aspect_ratio ? *p.min_aspect_ratio : 1 - p.max_aspect_ratio;
  const float hi = p.min_aspect_ratio ? p.max_aspect_ratio : 1 + p.max_aspect_ratio;
  SYMNET_CHECK(lo > 0 && lo <= hi)
      << w << "the aspect ratio range [" << lo << ", " << hi << "] must be positive and not "
      << "empty (it is [min_aspect_ratio, max_aspect_ratio], or [1 - max_aspect_ratio, 1 + "
      << "max_aspect_ratio] without min_aspect_ratio)";
  SYMNET_CHECK(p.min_img_size <= p.max_img_size)
      << w << "min_img_size " << p.min_img_size << " is larger than max_img_size "
      << p.max_img_size;
  if (p.max_crop_size != -1 || p.min_crop_size != -1) {
    SYMNET_CHECK(p.min_crop_size >= 1 && p.min_crop_size <= p.max_crop_size)
        << w << "min_crop_size and max_crop_size must both be set, with 1 <= min_crop_size <= "
        << "max_crop_size, got " << p.min_crop_size << " and " << p.max_crop_size;
  }
  if (p.random_resized_crop) {
    SYMNET_CHECK(p.min_random_scale == 1.0f && p.max_random_scale == 1.0f &&
                 p.min_crop_size == -1 && p.max_crop_size == -1 && !p.rand_crop)
        << w << "random_resized_crop=True cannot be combined with min_random_scale, "
        << "max_random_scale, min_crop_size, max_crop_size or rand_crop (as in MXNet)";
  }
  const float stds[4] = {p.std_r, p.std_g, p.std_b, p.std_a};
  for (float s : stds) {
    SYMNET_CHECK(s != 0) << w << "std_r/g/b/a must not be 0";
  }
  if (p.data_shape[0] == 1) {
    SYMNET_CHECK(p.saturation == 0 && p.pca_noise == 0 && p.random_h == 0 && p.random_s == 0)
        << w << "saturation, pca_noise, random_h and random_s change colours and need "
        << "3 channels; data_shape " << p.data_shape << " has 1 (brightness, contrast and "
        << "random_l work on grey images)";
  }
  for (int a : p.rotate_list) {
    SYMNET_CHECK(a >= -360 && a <= 360) << w << "rotate_list angles must be in [-360, 360]";
  }
  SYMNET_CHECK(p.shuffle_chunk_size <= (uint64_t{1} << 30))
      << w << "shuffle_chunk_size (MB) is too large: " << p.shuffle_chunk_size;
}

int CountAugmenters(const std::string& seq) {
  int n = 0;
  std::stringstream items(seq);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) continue;
    const std::string name = item.substr(b, e - b + 1);
    SYMNET_CHECK(name == "aug_default")
        << "ImageRecordIter: unknown augmenter '" << name << "' in aug_seq '" << seq
        << "'; the augmenter is 'aug_default'";
    ++n;
  }
  return n;
}

}  // namespace

ImageRecordIter::ImageRecordIter(const ImageRecordIterParams& params)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.p = params;
  const auto& p = s.p;
  Validate(p);
  s.num_augmenters = CountAugmenters(p.aug_seq);
  s.threads = std::max(1, std::min(p.preprocess_threads, omp_get_num_procs()));
  s.sync = p.ctx == "cpu" || p.prefetch_buffer == 0;
  s.SelectRecords();
  SYMNET_CHECK(!s.offsets.empty())
      << "ImageRecordIter: '" << p.path_imgrec << "' has no records for part " << p.part_index
      << " of " << p.num_parts;
  SYMNET_CHECK(p.round_batch || s.offsets.size() >= static_cast<size_t>(p.batch_size))
      << "ImageRecordIter: batch_size " << p.batch_size << " does not fit the " << s.offsets.size()
      << " records of '" << p.path_imgrec << "' (part " << p.part_index << " of " << p.num_parts
      << "); with round_batch=False no batch would be left";
  if (!p.path_imglist.empty()) {
    s.label_map = ReadImageList(p.path_imglist, p.label_width);
    s.has_label_map = true;
    s.Log("ImageRecordIter: loaded the image list " + p.path_imglist + " (" +
          std::to_string(s.label_map.size()) + " images)");
  }
  s.Log("ImageRecordIter: " + p.path_imgrec + ", part " + std::to_string(p.part_index) + " of " +
        std::to_string(p.num_parts) + ": " + std::to_string(s.offsets.size()) + " records, " +
        std::to_string(s.threads) + " decoding threads, " +
        (s.sync ? std::string("batches decoded when asked for (ctx='cpu')")
                : "up to " + std::to_string(p.prefetch_buffer) + " batches decoded ahead"));
  s.PrepareMeanImage();
  s.Start();
}

ImageRecordIter::~ImageRecordIter() { impl_->Stop(); }

bool ImageRecordIter::Next(ImageBatch* batch) {
  Impl& s = *impl_;
  if (s.sync) return s.MakeBatch(s.file.get(), batch);
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
size_t ImageRecordIter::num_prefetched() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->queue.size();
}
int ImageRecordIter::num_threads() const { return impl_->threads; }

}  // namespace symnet
