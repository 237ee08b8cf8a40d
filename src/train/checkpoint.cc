/*!
 * \brief Trainer checkpoints in the Python Module's files: prefix-symbol.json, prefix-%04d.params
 *  (arg:/aux: names) and prefix-%04d.states ("state:<param index>:0" momentum arrays plus a
 *  "meta" uint8 array holding JSON: num_update, index_update_count, layout, loss_scaler).
 *  Either front end resumes the other's run.
 */
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "symnet/base.h"
#include "symnet/ndarray_io.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

namespace {

std::string EpochPath(const std::string& prefix, int epoch, const char* ext) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "-%04d", epoch);
  return prefix + buf + ext;
}

/*! \brief The number after "key": in `json` (searching from `from`); `fallback` if absent. */
double JsonNumber(const std::string& json, const std::string& key, size_t from, double fallback) {
  const size_t k = json.find("\"" + key + "\"", from);
  if (k == std::string::npos) return fallback;
  const size_t colon = json.find(':', k);
  if (colon == std::string::npos) return fallback;
  const char* start = json.c_str() + colon + 1;
  while (*start == ' ') ++start;
  if (std::string(start, 4) == "true") return 1.0;
  if (std::string(start, 5) == "false") return 0.0;
  char* end = nullptr;
  const double v = std::strtod(start, &end);
  SYMNET_CHECK(end != start) << "optimizer state: the value of '" << key << "' is not a number";
  return v;
}

}  // namespace

void Trainer::SaveCheckpoint(const std::string& prefix, int epoch, bool save_states) const {
  original_.Save(prefix + "-symbol.json");
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  for (size_t i = 0; i < param_names_.size(); ++i) {
    arrays.push_back(exec_->arg_arrays()[param_arg_index_[i]]);
    names.push_back("arg:" + param_names_[i]);
  }
  for (size_t i = 0; i < aux_names_.size(); ++i) {
    arrays.push_back(exec_->aux_arrays()[i]);
    names.push_back("aux:" + aux_names_[i]);
  }
  SaveNDArrays(EpochPath(prefix, epoch, ".params"), arrays, names);
  if (!save_states) return;

  arrays.clear();
  names.clear();
  std::ostringstream counts, layout;
  for (size_t i = 0; i < param_names_.size(); ++i) {
    const bool has_mom = !moms_[i].is_none();
    if (has_mom) {
      arrays.push_back(moms_[i]);
      names.push_back("state:" + std::to_string(i) + ":0");
    }
    counts << (i ? ", " : "") << "\"" << i << "\": " << num_update_;
    layout << (i ? ", " : "") << "\"" << i << "\": [" << (has_mom ? "true" : "false") << ", false]";
  }
  std::ostringstream meta;
  meta.precision(17);
  meta << "{\"num_update\": " << num_update_ << ", \"index_update_count\": {" << counts.str()
       << "}, \"layout\": {" << layout.str() << "}, \"loss_scaler\": ";
  if (scaler_) {
    meta << "{\"loss_scale\": " << scaler_->scale << ", \"clean_steps\": " << scaler_->clean_steps
         << ", \"num_overflows\": " << scaler_->num_overflows << ", \"scale_factor\": " << scaler_->factor
         << ", \"scale_window\": " << scaler_->window << ", \"min_scale\": " << scaler_->min_scale
         << ", \"max_scale\": " << scaler_->max_scale << ", \"dynamic\": true}";
  } else {
    meta << "null";
  }
  meta << "}";
  const std::string text = meta.str();
  arrays.push_back(NDArray::FromBuffer(text.data(), Shape{static_cast<int64_t>(text.size())}, DType::kUint8,
                                       DType::kUint8));
  names.push_back("meta");
  SaveNDArrays(EpochPath(prefix, epoch, ".states"), arrays, names);
}

void Trainer::LoadCheckpoint(const std::string& prefix, int epoch, bool load_states) {
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  const std::string params = EpochPath(prefix, epoch, ".params");
  LoadNDArrays(params, &arrays, &names);
  std::map<std::string, NDArray> by_name;
  for (size_t i = 0; i < names.size(); ++i) by_name[names[i]] = arrays[i];
  auto fill = [&](const std::string& key, const NDArray& dst) {
    auto it = by_name.find(key);
    SYMNET_CHECK(it != by_name.end()) << "checkpoint '" << params << "' has no '" << key << "'";
    SYMNET_CHECK(it->second.shape() == dst.shape()) << "checkpoint '" << params << "': '" << key << "' has shape "
                                                    << it->second.shape() << ", the network expects " << dst.shape();
    dst.CopyFrom(it->second);
  };
  for (size_t i = 0; i < param_names_.size(); ++i) fill("arg:" + param_names_[i], exec_->arg_arrays()[param_arg_index_[i]]);
  for (size_t i = 0; i < aux_names_.size(); ++i) fill("aux:" + aux_names_[i], exec_->aux_arrays()[i]);
  if (!load_states) return;

  const std::string states = EpochPath(prefix, epoch, ".states");
  LoadNDArrays(states, &arrays, &names);
  std::string meta;
  by_name.clear();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "meta") {
      meta.resize(static_cast<size_t>(arrays[i].Size()));
      arrays[i].CopyToBuffer(&meta[0], DType::kUint8);
    } else {
      by_name[names[i]] = arrays[i];
    }
  }
  SYMNET_CHECK(!meta.empty()) << "optimizer state '" << states << "' has no meta record";
  num_update_ = static_cast<int64_t>(JsonNumber(meta, "num_update", 0, 0));
  for (size_t i = 0; i < param_names_.size(); ++i) {
    if (moms_[i].is_none()) continue;
    auto it = by_name.find("state:" + std::to_string(i) + ":0");
    if (it == by_name.end()) {
      moms_[i].Fill(0.0);  // no momentum saved for it (e.g. saved without momentum)
      continue;
    }
    SYMNET_CHECK(it->second.shape() == moms_[i].shape())
        << "optimizer state '" << states << "': momentum of '" << param_names_[i] << "' has shape "
        << it->second.shape() << ", expected " << moms_[i].shape();
    moms_[i].CopyFrom(it->second);
  }
  const size_t ls = meta.find("\"loss_scaler\": {");
  if (ls != std::string::npos) {
    if (!scaler_) scaler_.reset(new LossScaler());
    scaler_->scale = JsonNumber(meta, "loss_scale", ls, scaler_->scale);
    scaler_->clean_steps = static_cast<int64_t>(JsonNumber(meta, "clean_steps", ls, 0));
    scaler_->num_overflows = static_cast<int64_t>(JsonNumber(meta, "num_overflows", ls, 0));
    scaler_->factor = JsonNumber(meta, "scale_factor", ls, scaler_->factor);
    scaler_->window = static_cast<int64_t>(JsonNumber(meta, "scale_window", ls, static_cast<double>(scaler_->window)));
    scaler_->min_scale = JsonNumber(meta, "min_scale", ls, scaler_->min_scale);
    scaler_->max_scale = JsonNumber(meta, "max_scale", ls, scaler_->max_scale);
  }
}

}  // namespace train
}  // namespace symnet
