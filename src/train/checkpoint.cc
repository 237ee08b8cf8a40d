/*!
 * \brief Trainer checkpoints in the Python Module's files: prefix-symbol.json, prefix-%04d.params
 *  (arg:/aux: names) and prefix-%04d.states (SaveOptimizerStates: the momenta and the loss
 *  scaler). Either front end resumes the other's run.
 */
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

  OptimizerStates st;
  st.num_update = num_update_;
  for (size_t i = 0; i < param_names_.size(); ++i) {
    const int64_t index = static_cast<int64_t>(i);
    st.index_update_count[index] = num_update_;
    st.states[index].parts = {moms_[i]};  // SGD-momentum's one state (none without momentum)
  }
  st.has_loss_scaler = scaler_ != nullptr;
  if (scaler_) st.loss_scaler = *scaler_;
  SaveOptimizerStates(EpochPath(prefix, epoch, ".states"), st);
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
