/*! \brief String options -> ImageRecordIterParams (see image_record_params.h). */
#include "image_record_params.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>
#include <utility>

#include "symnet/base.h"

namespace symnet {
namespace io {

DMLC_REGISTER_PARAMETER(RecordReaderParam);
DMLC_REGISTER_PARAMETER(RecordOrderParam);
DMLC_REGISTER_PARAMETER(BatchingParam);
DMLC_REGISTER_PARAMETER(PrefetchParam);
DMLC_REGISTER_PARAMETER(DefaultAugmentParam);
DMLC_REGISTER_PARAMETER(NormalizeParam);

namespace {

// options the augmenter reads itself (as MXNet's does rotate_list) and symnet's own
const char* const kExtraOptions[] = {"rotate_list", "skip_bad"};

template <typename P>
void AddNames(std::set<std::string>* names) {
  for (const auto& f : P::__FIELDS__()) names->insert(f.name);
}

std::set<std::string> AllNames() {
  std::set<std::string> names;
  AddNames<RecordReaderParam>(&names);
  AddNames<RecordOrderParam>(&names);
  AddNames<BatchingParam>(&names);
  AddNames<PrefetchParam>(&names);
  AddNames<DefaultAugmentParam>(&names);
  AddNames<NormalizeParam>(&names);
  for (const char* n : kExtraOptions) names.insert(n);
  return names;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/*!
 * \brief Fills `p` from the options: each value alone first, so that an error names the option
 *  (dmlc's own message does not always), then all of them with the defaults and the check for
 *  required ones.
 */
template <typename P>
void Fill(P* p, const std::map<std::string, std::string>& kwargs) {
  std::set<std::string> mine;
  AddNames<P>(&mine);
  for (const auto& kv : kwargs) {
    if (!mine.count(kv.first)) continue;
    P probe;
    try {
      probe.UpdateAllowUnknown(std::map<std::string, std::string>{kv});
    } catch (const dmlc::ParamError& e) {
      SYMNET_THROW << "ImageRecordIter: bad value '" << kv.second << "' for option '" << kv.first
                   << "': " << e.what();
    }
  }
  try {
    p->InitAllowUnknown(kwargs);
  } catch (const dmlc::ParamError& e) {
    SYMNET_THROW << "ImageRecordIter: " << e.what();
  }
}

/*! \brief "0,90,180" (also "[0, 90]" or "(0, 90)") -> the angles. */
std::vector<int> ParseIntList(const std::string& key, const std::string& text) {
  std::string s = text;
  for (char& c : s)
    if (c == '[' || c == ']' || c == '(' || c == ')') c = ' ';
  std::vector<int> out;
  std::stringstream items(s);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) {
      SYMNET_CHECK(out.empty() && items.eof())
          << "ImageRecordIter: bad value '" << text << "' for option '" << key
          << "': expected integers separated by commas, e.g. '0,90,180'";
      continue;
    }
    const std::string num = item.substr(b, e - b + 1);
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(num, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    SYMNET_CHECK(used == num.size())
        << "ImageRecordIter: bad value '" << text << "' for option '" << key << "': '" << num
        << "' is not an integer (expected integers separated by commas, e.g. '0,90,180')";
    out.push_back(v);
  }
  return out;
}

/*! \brief MXNet's optional numbers: "None" (or "none"), or a number that is the whole text. */
template <typename T>
std::optional<T> ParseOptional(const std::string& key, const std::string& text, const char* kind) {
  if (text == "None" || text == "none") return std::nullopt;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  while (used < text.size() && std::isspace(static_cast<unsigned char>(text[used]))) ++used;
  const bool whole = std::is_integral<T>::value ? v == std::floor(v) && std::abs(v) < 2147483648.0
                                                : std::isfinite(v);
  SYMNET_CHECK(used == text.size() && !text.empty() && whole)
      << "ImageRecordIter: bad value '" << text << "' for option '" << key << "': expected " << kind
      << " or None";
  return static_cast<T>(v);
}

bool ParseBool(const std::string& key, const std::string& text) {
  std::string l = text;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "true" || l == "1") return true;
  if (l == "false" || l == "0") return false;
  SYMNET_THROW << "ImageRecordIter: bad value '" << text << "' for option '" << key
               << "': expected True, False, 1 or 0";
}

}  // namespace

std::vector<std::string> ImageRecordIterOptionNames() {
  const std::set<std::string> names = AllNames();
  return std::vector<std::string>(names.begin(), names.end());
}

ImageRecordIterParams ParseImageRecordIterParams(const std::map<std::string, std::string>& kwargs) {
  const std::set<std::string> names = AllNames();
  for (const auto& kv : kwargs)
    SYMNET_CHECK(names.count(kv.first)) << "ImageRecordIter: unknown option '" << kv.first
                                        << "'; accepted: " << Join(ImageRecordIterOptionNames());
  RecordReaderParam reader;
  RecordOrderParam order;
  BatchingParam batch;
  PrefetchParam prefetch;
  DefaultAugmentParam aug;
  NormalizeParam norm;
  Fill(&reader, kwargs);
  Fill(&order, kwargs);
  Fill(&batch, kwargs);
  Fill(&prefetch, kwargs);
  Fill(&aug, kwargs);
  Fill(&norm, kwargs);

  ImageRecordIterParams p;
  p.path_imglist = reader.path_imglist;
  p.path_imgrec = reader.path_imgrec;
  p.path_imgidx = reader.path_imgidx;
  p.aug_seq = reader.aug_seq;
  p.label_width = reader.label_width;
  p.data_shape = reader.data_shape;
  p.preprocess_threads = reader.preprocess_threads;
  p.verbose = reader.verbose;
  p.num_parts = reader.num_parts;
  p.part_index = reader.part_index;
  p.device_id = reader.device_id;
  p.shuffle_chunk_size = reader.shuffle_chunk_size;
  p.shuffle_chunk_seed = reader.shuffle_chunk_seed;
  p.seed_aug = ParseOptional<int>("seed_aug", reader.seed_aug, "an integer");
  p.shuffle = order.shuffle;
  p.seed = static_cast<uint64_t>(static_cast<int64_t>(order.seed));
  p.batch_size = batch.batch_size;
  p.round_batch = batch.round_batch;
  SYMNET_CHECK(prefetch.prefetch_buffer <= 1024)
      << "ImageRecordIter: bad value '" << prefetch.prefetch_buffer
      << "' for option 'prefetch_buffer': at most 1024 batches";
  p.prefetch_buffer = static_cast<int>(prefetch.prefetch_buffer);
  p.ctx = prefetch.ctx == 1 ? "cpu" : "gpu";
  p.dtype = prefetch.dtype >= 0 ? static_cast<DType>(prefetch.dtype) : DType::kFloat32;
  p.resize = aug.resize;
  p.rand_crop = aug.rand_crop;
  p.random_resized_crop = aug.random_resized_crop;
  p.max_rotate_angle = aug.max_rotate_angle;
  p.max_aspect_ratio = aug.max_aspect_ratio;
  p.min_aspect_ratio = ParseOptional<float>("min_aspect_ratio", aug.min_aspect_ratio, "a number");
  p.max_shear_ratio = aug.max_shear_ratio;
  p.max_crop_size = aug.max_crop_size;
  p.min_crop_size = aug.min_crop_size;
  p.max_random_scale = aug.max_random_scale;
  p.min_random_scale = aug.min_random_scale;
  p.max_random_area = aug.max_random_area;
  p.min_random_area = aug.min_random_area;
  p.max_img_size = aug.max_img_size;
  p.min_img_size = aug.min_img_size;
  p.brightness = aug.brightness;
  p.contrast = aug.contrast;
  p.saturation = aug.saturation;
  p.pca_noise = aug.pca_noise;
  p.random_h = aug.random_h;
  p.random_s = aug.random_s;
  p.random_l = aug.random_l;
  p.rotate = aug.rotate;
  p.fill_value = aug.fill_value;
  p.inter_method = aug.inter_method;
  p.pad = aug.pad;
  p.mirror = norm.mirror;
  p.rand_mirror = norm.rand_mirror;
  p.mean_img = norm.mean_img;
  p.mean_r = norm.mean_r;
  p.mean_g = norm.mean_g;
  p.mean_b = norm.mean_b;
  p.mean_a = norm.mean_a;
  p.std_r = norm.std_r;
  p.std_g = norm.std_g;
  p.std_b = norm.std_b;
  p.std_a = norm.std_a;
  p.scale = norm.scale;
  p.max_random_contrast = norm.max_random_contrast;
  p.max_random_illumination = norm.max_random_illumination;
  auto it = kwargs.find("rotate_list");
  if (it != kwargs.end()) p.rotate_list = ParseIntList("rotate_list", it->second);
  it = kwargs.find("skip_bad");
  if (it != kwargs.end()) p.skip_bad = ParseBool("skip_bad", it->second);
  return p;
}

}  // namespace io

ImageRecordIterParams ImageRecordIterParams::FromStrings(
    const std::map<std::string, std::string>& kwargs) {
  return io::ParseImageRecordIterParams(kwargs);
}

std::vector<std::string> ImageRecordIterParams::OptionNames() {
  return io::ImageRecordIterOptionNames();
}

}  // namespace symnet
