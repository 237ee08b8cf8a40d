/*!
 * \brief Trainer: bind (AMP-converted when asked), initialise, step with dynamic loss scaling
 *  and fused multi-weight SGD-momentum updates, as the Python Module does.
 */
#include <algorithm>
#include <set>
#include <sstream>

#include "symnet/amp.h"
#include "symnet/base.h"
#include "symnet/imperative.h"
#include "symnet/operator_builder.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

namespace {

/*! \brief Weights per fused update call (the Python optimizer's aggregate_num). */
constexpr size_t kAggregate = 60;

bool Decayed(const std::string& name) {  // MXNet's default wd_mult: only weights and gammas
  auto ends = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends("_weight") || ends("_gamma");
}

std::string Tuple(const std::vector<double>& v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << FormatParam(v[i]);
  os << (v.size() == 1 ? ",)" : ")");
  return os.str();
}

}  // namespace

bool IsDistributedStore(const std::string& kvstore) {
  if (kvstore.empty() || kvstore == "local" || kvstore == "device") return false;
  if (kvstore == "dist_sync" || kvstore == "dist_device_sync" || kvstore == "dist_sync_device" ||
      kvstore == "horovod")
    return true;
  SYMNET_CHECK(kvstore != "dist_async")
      << "Trainer: kvstore 'dist_async' needs a parameter server, which symnet does not have; use "
         "'dist_sync' (synchronous all-reduce over MPI, docs/distributed.md)";
  SYMNET_CHECK(false) << "Trainer: kvstore '" << kvstore
                      << "' is not known (local, device, dist_sync, dist_device_sync, horovod)";
  return false;
}

Trainer::~Trainer() {
  if (reducer_) exec_->SetGradientReadyCallback(nullptr);
}

Trainer::Trainer(const Symbol& net, const TrainerOptions& options)
    : original_(net), options_(options) {
  const bool distributed = IsDistributedStore(options.kvstore);  // a bad name fails before binding
  std::vector<std::string> inputs = options.data_names;
  inputs.insert(inputs.end(), options.label_names.begin(), options.label_names.end());
  const std::set<std::string> input_set(inputs.begin(), inputs.end());
  Symbol bound = net;
  if (!options.amp.empty()) {
    amp::AmpOptions ao;
    ao.target = DTypeFromName(options.amp);
    SYMNET_CHECK(ao.target == DType::kFloat16 || ao.target == DType::kBFloat16)
        << "Trainer: amp must be float16 or bfloat16, got '" << options.amp << "'";
    ao.data_names = inputs;
    bound = amp::ReducePrecision(net, ao);
    scaler_.reset(new LossScaler());
  }
  arg_names_ = bound.ListArguments();
  aux_names_ = bound.ListAuxiliaryStates();
  for (const auto& in : inputs) {
    SYMNET_CHECK(std::find(arg_names_.begin(), arg_names_.end(), in) != arg_names_.end())
        << "Trainer: input '" << in << "' is not an argument of the network";
    SYMNET_CHECK(options.input_shapes.count(in))
        << "Trainer: no shape given for input '" << in << "'";
  }
  std::map<std::string, GradReq> reqs;
  for (const auto& n : original_.ListArguments()) {  // the Python Module's parameter order
    if (input_set.count(n)) continue;
    param_names_.push_back(n);
    param_arg_index_.push_back(
        static_cast<int>(std::find(arg_names_.begin(), arg_names_.end(), n) - arg_names_.begin()));
  }
  for (const auto& n : arg_names_) reqs[n] = input_set.count(n) ? GradReq::kNull : GradReq::kWrite;
  exec_ = Executor::SimpleBind(bound, options.device, options.input_shapes, options.input_dtypes,
                               reqs, GradReq::kWrite, options.bind);
  for (int idx : param_arg_index_) {
    const NDArray& w = exec_->arg_arrays()[idx];
    moms_.push_back(options.momentum != 0.0 ? NDArray::Zeros(w.shape(), w.device(), w.dtype())
                                            : NDArray());
  }
  if (distributed) {
    dist::Init();
    rank_ = dist::Rank();
    ranks_ = dist::Size();
  }
  if (ranks_ > 1) {  // sum gradient buckets over the ranks while backward runs
    constexpr size_t kNone = static_cast<size_t>(-1);
    std::vector<size_t> param_of_arg(arg_names_.size(), kNone), ready;
    std::vector<NDArray> grads;
    for (size_t i = 0; i < param_arg_index_.size(); ++i) {
      param_of_arg[param_arg_index_[i]] = i;
      grads.push_back(exec_->grad_arrays()[param_arg_index_[i]]);
    }
    for (size_t a : exec_->GradientReadyOrder())
      if (param_of_arg[a] != kNone) ready.push_back(param_of_arg[a]);
    reducer_.reset(new dist::GradientReducer(grads, ready, options.gradient_bucket_bytes));
    dist::GradientReducer* reducer = reducer_.get();
    exec_->SetGradientReadyCallback([reducer, param_of_arg](size_t arg) {
      if (param_of_arg[arg] != kNone) reducer->MarkReady(param_of_arg[arg]);
    });
  }
}

void Trainer::InitParams(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto attrs = original_.AttrDict();
  auto attrs_of = [&](const std::string& n) {
    auto it = attrs.find(n);
    return it == attrs.end() ? std::map<std::string, std::string>{} : it->second;
  };
  for (size_t i = 0; i < param_names_.size(); ++i)
    InitParameter(param_names_[i], attrs_of(param_names_[i]),
                  exec_->arg_arrays()[param_arg_index_[i]], &rng);
  for (size_t i = 0; i < aux_names_.size(); ++i)
    InitParameter(aux_names_[i], attrs_of(aux_names_[i]), exec_->aux_arrays()[i], &rng);
  if (ranks_ > 1) {  // every rank starts from rank 0's parameters and statistics
    std::vector<NDArray> all;
    for (int idx : param_arg_index_) all.push_back(exec_->arg_arrays()[idx]);
    all.insert(all.end(), exec_->aux_arrays().begin(), exec_->aux_arrays().end());
    dist::Broadcast(all, 0);
  }
}

bool Trainer::Step(const std::vector<NDArray>& inputs) {
  const size_t n_in = options_.data_names.size() + options_.label_names.size();
  SYMNET_CHECK_EQ(inputs.size(), n_in) << "Trainer::Step takes the data then the label arrays";
  for (size_t i = 0; i < n_in; ++i) {
    const std::string& name = i < options_.data_names.size()
                                  ? options_.data_names[i]
                                  : options_.label_names[i - options_.data_names.size()];
    const size_t idx = std::find(arg_names_.begin(), arg_names_.end(), name) - arg_names_.begin();
    exec_->arg_arrays()[idx].CopyFrom(inputs[i]);
  }
  const double used = loss_scale();  // the factor the gradients of this step carry
  exec_->SetLossScale(static_cast<float>(used));
  exec_->Forward(true);
  exec_->Backward();
  // the summed gradients are the same on every rank, and so is the overflow decision below:
  // inf and NaN survive a sum
  if (reducer_) reducer_->Wait();
  if (scaler_) {
    std::vector<NDArray> grads;
    for (int idx : param_arg_index_) grads.push_back(exec_->grad_arrays()[idx]);
    if (scaler_->CheckStep(grads) == 0.0) {
      ++num_skipped_;
      return false;
    }
  }
  Update(used);
  return true;
}

void Trainer::Update(double grad_scale) {
  ++num_update_;
  const double lr = options_.lr(num_update_);
  const auto& data_shape = options_.input_shapes.at(options_.data_names[0]);
  const double rescale = 1.0 / (static_cast<double>(data_shape[0]) * ranks_ * grad_scale);
  const bool mom = options_.momentum != 0.0;
  for (size_t start = 0; start < param_names_.size(); start += kAggregate) {
    const size_t end = std::min(param_names_.size(), start + kAggregate);
    std::vector<NDArray> in, out;
    std::vector<double> lrs, wds;
    for (size_t i = start; i < end; ++i) {
      const NDArray& w = exec_->arg_arrays()[param_arg_index_[i]];
      in.push_back(w);
      in.push_back(exec_->grad_arrays()[param_arg_index_[i]]);
      if (mom) in.push_back(moms_[i]);
      out.push_back(w);
      lrs.push_back(lr);
      wds.push_back(Decayed(param_names_[i]) ? options_.wd : 0.0);
    }
    std::map<std::string, std::string> p{{"lrs", Tuple(lrs)},
                                         {"wds", Tuple(wds)},
                                         {"rescale_grad", FormatParam(rescale)},
                                         {"num_weights", std::to_string(end - start)}};
    if (mom) p["momentum"] = FormatParam(options_.momentum);
    if (options_.clip_gradient >= 0) p["clip_gradient"] = FormatParam(options_.clip_gradient);
    Invoke(mom ? "multi_sgd_mom_update" : "multi_sgd_update", p, in, out);
  }
}

const std::vector<NDArray>& Trainer::Predict(const std::vector<NDArray>& data) {
  SYMNET_CHECK_EQ(data.size(), options_.data_names.size())
      << "Trainer::Predict takes the data arrays";
  for (size_t i = 0; i < data.size(); ++i) {
    const size_t idx = std::find(arg_names_.begin(), arg_names_.end(), options_.data_names[i]) -
                       arg_names_.begin();
    exec_->arg_arrays()[idx].CopyFrom(data[i]);
  }
  exec_->Forward(false);
  return exec_->outputs();
}

}  // namespace train
}  // namespace symnet
