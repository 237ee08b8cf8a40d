/*!
 * \brief Trainer checkpoints in the Python Module's files: prefix-symbol.json, prefix-%04d.params
 *  (arg:/aux: names) and prefix-%04d.states (SaveOptimizerStates: the momenta and the loss
 *  scaler). Either front end resumes the other's run.
 */
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

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

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

int LatestCheckpoint(const std::string& prefix, bool need_states) {
  const size_t slash = prefix.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : prefix.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  if (!FileExists(prefix + "-symbol.json")) return -1;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return -1;
  int best = -1;
  const std::string head = base + "-", tail = ".params";
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < head.size() + 4 + tail.size() || name.compare(0, head.size(), head) != 0 ||
        name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string digits = name.substr(head.size(), name.size() - head.size() - tail.size());
    if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;
    const int epoch = std::stoi(digits);
    if (epoch <= best || EpochPath(prefix, epoch, ".params") != prefix + "-" + digits + tail)
      continue;
    if (need_states && !FileExists(EpochPath(prefix, epoch, ".states"))) continue;
    best = epoch;
  }
  ::closedir(d);
  return best;
}

void Trainer::SaveCheckpoint(const std::string& prefix, int epoch, bool save_states) const {
  if (rank_ != 0) return;  // the ranks hold the same weights: rank 0's files are the job's
  original_.Save(prefix + "-symbol.json");
  if (save_states) SaveOptimizerStates(EpochPath(prefix, epoch, ".states"), States());
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
  // last: a .params file on disk means the symbol and states before it are complete
  SaveNDArrays(EpochPath(prefix, epoch, ".params"), arrays, names);
}

OptimizerStates Trainer::States() const {
  OptimizerStates st;
  st.num_update = num_update_;
  for (size_t i = 0; i < param_names_.size(); ++i) {
    const int64_t index = static_cast<int64_t>(i);
    st.index_update_count[index] = num_update_;
    st.states[index].parts = {moms_[i]};  // SGD-momentum's one state (none without momentum)
  }
  st.has_loss_scaler = scaler_ != nullptr;
  if (scaler_) st.loss_scaler = *scaler_;
  return st;
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
    SYMNET_CHECK(it->second.shape() == dst.shape())
        << "checkpoint '" << params << "': '" << key << "' has shape " << it->second.shape()
        << ", the network expects " << dst.shape();
    dst.CopyFrom(it->second);
  };
  for (size_t i = 0; i < param_names_.size(); ++i)
    fill("arg:" + param_names_[i], exec_->arg_arrays()[param_arg_index_[i]]);
  for (size_t i = 0; i < aux_names_.size(); ++i)
    fill("aux:" + aux_names_[i], exec_->aux_arrays()[i]);
  if (!load_states) return;

  const std::string states = EpochPath(prefix, epoch, ".states");
  const OptimizerStates st = LoadOptimizerStates(states);
  for (size_t i = 0; i < param_names_.size(); ++i) {
    if (moms_[i].is_none()) continue;
    auto it = st.states.find(static_cast<int64_t>(i));
    const NDArray* saved =
        it == st.states.end() || it->second.parts.empty() ? nullptr : &it->second.parts[0];
    if (!saved || saved->is_none()) {
      moms_[i].Fill(0.0);  // no momentum saved for it (e.g. saved without momentum)
      continue;
    }
    SYMNET_CHECK(saved->shape() == moms_[i].shape())
        << "optimizer state '" << states << "': momentum of '" << param_names_[i] << "' has shape "
        << saved->shape() << ", expected " << moms_[i].shape();
    moms_[i].CopyFrom(*saved);
  }
  num_update_ = st.num_update;
  if (st.has_loss_scaler) {
    if (!scaler_) scaler_.reset(new LossScaler());
    *scaler_ = st.loss_scaler;
  }
}

}  // namespace train
}  // namespace symnet
