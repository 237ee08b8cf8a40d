/*!
 * \brief The C++ training front end (the Python Module's counterpart): parameter
 *  initialisation with MXNet's name rules, learning-rate schedules, the dynamic loss scaler,
 *  accuracy / cross-entropy metrics, and a Trainer that binds a network (optionally converted
 *  for mixed precision), runs SGD-momentum steps with fused multi-weight updates, skips steps
 *  whose gradients overflow, and writes checkpoints that the Python Module can load (and
 *  loads the Python Module's), alone or as one rank of a distributed (mpirun) job.
 */
#ifndef SYMNET_TRAIN_H_
#define SYMNET_TRAIN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "symnet/collectives.h"
#include "symnet/executor.h"
#include "symnet/ndarray.h"
#include "symnet/symbol.h"

namespace symnet {
namespace train {

/*!
 * \brief Fills one parameter as Module.init_params(Xavier(gaussian, in, 2)) does: *_weight
 *  He-normal, *_bias / *_beta / *_moving_mean zero, *_gamma / *_moving_var one; a variable's
 *  __init__ attribute ("zero", "one", "constant") wins. Errors on any other name.
 */
void InitParameter(const std::string& name, const std::map<std::string, std::string>& var_attrs,
                   const NDArray& arr, std::mt19937_64* rng);

/*! \brief lr(num_update), num_update counted from 1, with an optional linear warmup. */
struct LRScheduler {
  enum Kind { kConstant, kMultiFactor, kCosine } kind = kConstant;
  double base_lr = 0.01;
  double final_lr = 0.0;       // cosine
  int64_t max_update = 0;      // cosine
  std::vector<int64_t> steps;  // multi-factor: lr *= factor after each
  double factor = 0.1;         // multi-factor
  int64_t warmup_steps = 0;
  double warmup_begin_lr = 0.0;
  double operator()(int64_t num_update) const;
};

/*!
 * \brief Loss scaling for mixed-precision training, the one implementation behind the C++
 *  Trainer and Python's amp.LossScaler (Module, Trainer): dynamic (halve on overflow, grow by
 *  `factor` after `window` clean steps, within [min_scale, max_scale]) or static (never moves).
 */
struct LossScaler {
  double scale = 65536.0, factor = 2.0, min_scale = 1.0, max_scale = 16777216.0;
  int64_t window = 2000, clean_steps = 0, num_overflows = 0;
  bool dynamic = true;

  /*! \brief Throws when the settings cannot work (scale outside [min, max], factor <= 1...). */
  void Validate() const;
  /*! \brief After a step: count it, and move the scale when dynamic. */
  void Update(bool overflow);
  /*! \brief True when any gradient holds inf or nan: one fused multi_all_finite over all of
   *  them (none arrays are ignored). */
  static bool HasOverflow(const std::vector<NDArray>& grads);
  /*!
   * \brief The mixed-precision step's decision, written once for every front end: check all
   *  gradients, adjust the scale, and return the factor the gradients carry (the scale used
   *  by this step's backward) when the update may go ahead, or 0 when it must be skipped
   *  (an overflow: nothing but the scale may change).
   */
  double CheckStep(const std::vector<NDArray>& grads);
  /*! \brief The state as a JSON object (the .states "loss_scaler" record, Python's
   *  state_dict()); FromJson reads it back, keeping fields it lacks. */
  std::string ToJson() const;
  void FromJson(const std::string& text);
};

/*!
 * \brief An optimizer's state file (prefix-%04d.states), the one codec behind the C++ Trainer and
 *  the Python Module: MXNet's .params format holding "state:<index>:<part>" arrays and a "meta"
 *  uint8 array of JSON (num_update, index_update_count, layout: per index the parts present
 *  plus whether the state is a tuple, loss_scaler or null).
 */
struct OptimizerStates {
  struct Entry {
    std::vector<NDArray> parts;  // a none NDArray marks a part that is None (e.g. no momentum)
    bool is_tuple = false;
  };
  int64_t num_update = 0;
  std::map<int64_t, int64_t> index_update_count;
  std::map<int64_t, Entry> states;
  bool has_loss_scaler = false;
  LossScaler loss_scaler;
};
void SaveOptimizerStates(const std::string& path, const OptimizerStates& states);
/*! \brief Throws naming the file and the field when the file is not a state file. */
OptimizerStates LoadOptimizerStates(const std::string& path);
/*! \brief LoadOptimizerStates on the file's bytes (`what` names it in messages). */
OptimizerStates ParseOptimizerStates(const std::string& bytes, const std::string& what);

/*! \brief Running top-1 accuracy and cross-entropy of class probabilities (N, C). */
struct Metrics {
  double correct = 0, nll = 0;
  int64_t count = 0;
  /*! \brief Adds the first `valid` rows (a padded batch has fewer real ones). */
  void Update(const NDArray& probs, const NDArray& labels, int64_t valid);
  /*! \brief Sums the counts over the ranks of a distributed job: every rank calls it and then
   *  holds the job's metrics (nothing changes in a job of one rank). */
  void SumOverRanks();
  double accuracy() const { return count ? correct / count : 0.0; }
  double cross_entropy() const { return count ? nll / count : 0.0; }
  void Reset() { *this = Metrics(); }
};

/*! \brief True for the kvstore types of a distributed job (dist_sync, dist_device_sync,
 *  horovod), false for local and device; a clear error for dist_async and unknown names. */
bool IsDistributedStore(const std::string& kvstore);

struct TrainerOptions {
  std::vector<std::string> data_names{"data"};
  std::vector<std::string> label_names{"softmax_label"};
  std::map<std::string, Shape> input_shapes;  // every data and label input
  std::map<std::string, DType> input_dtypes;
  std::string amp;  // "", "float16" or "bfloat16": convert the graph, scale losses
  double momentum = 0.9, wd = 1e-4;
  double clip_gradient = -1.0;  // < 0: off
  LRScheduler lr;
  Device device = Device::CPU();
  BindOptions bind = BindOptions::FromEnvironment();  // layout plan, CUDA graphs, workspace cap
  /*!
   * \brief "local" (also "device", ""): this process alone. "dist_sync" (also
   *  "dist_device_sync", "horovod"): one rank of an mpirun job (docs/distributed.md): the
   *  parameters start as rank 0's, the gradients are summed over the ranks in buckets of
   *  gradient_bucket_bytes while backward runs, and the update divides by the global batch.
   */
  std::string kvstore = "local";
  size_t gradient_bucket_bytes = size_t{25} << 20;
};

/*!
 * \brief The newest complete checkpoint of `prefix`: the largest epoch N with prefix-NNNN.params
 *  and prefix-symbol.json (and prefix-NNNN.states when need_states), or -1 when there is none.
 *  Savers write the .params file last, so its presence means the set is whole; a crash during
 *  a save leaves at most temporary files and an orphan .states, which this passes over.
 */
int LatestCheckpoint(const std::string& prefix, bool need_states);

class Trainer {
 public:
  /*! \brief Binds `net` (converted with ReducePrecision when options.amp is set). */
  Trainer(const Symbol& net, const TrainerOptions& options);

  ~Trainer();
  /*! \brief Fresh parameters (InitParameter, seeded); in a distributed job every rank then
   *  holds rank 0's. */
  void InitParams(uint64_t seed);
  /*! \brief Copies inputs in, runs forward, backward and the update; false when the step was
   *  skipped because a gradient overflowed (nothing changed but the loss scale). */
  bool Step(const std::vector<NDArray>& inputs);
  /*! \brief Inference forward (BatchNorm uses its moving statistics); returns the outputs. */
  const std::vector<NDArray>& Predict(const std::vector<NDArray>& data);
  const std::vector<NDArray>& outputs() const { return exec_->outputs(); }

  /*! \brief prefix-symbol.json (the unconverted network), with states prefix-%04d.states, and
   *  last prefix-%04d.params (arg:/aux:), in the Python Module's layout. Each file is replaced
   *  atomically, and the .params file, written last, marks the set complete (LatestCheckpoint).
   *  In a distributed job only rank 0 writes (every rank holds the same weights). */
  void SaveCheckpoint(const std::string& prefix, int epoch, bool save_states) const;
  /*! \brief Loads parameters (and optimizer / loss-scaler state when present and asked). */
  void LoadCheckpoint(const std::string& prefix, int epoch, bool load_states);

  double loss_scale() const { return scaler_ ? scaler_->scale : 1.0; }
  const LossScaler* loss_scaler() const { return scaler_.get(); }
  int64_t num_update() const { return num_update_; }
  int64_t num_skipped() const { return num_skipped_; }
  double current_lr() const { return options_.lr(std::max<int64_t>(num_update_, 1)); }
  Executor& executor() { return *exec_; }
  /*! \brief This process's rank and the number of ranks (0 and 1 without a distributed store). */
  int rank() const { return rank_; }
  int num_workers() const { return ranks_; }
  /*! \brief The gradient reducer of a distributed job of several ranks, else null. */
  const dist::GradientReducer* gradient_reducer() const { return reducer_.get(); }
  const std::vector<std::string>& param_names() const { return param_names_; }

 private:
  void Update(double grad_scale);
  /*! \brief The momenta, update count and loss scaler as a .states file holds them. */
  OptimizerStates States() const;
  Symbol original_;
  TrainerOptions options_;
  std::unique_ptr<Executor> exec_;
  std::vector<std::string> arg_names_, aux_names_;
  std::vector<std::string> param_names_;  // arguments that are not inputs (Module's order)
  std::vector<int> param_arg_index_;      // position of each parameter among the arguments
  std::vector<NDArray> moms_;
  std::unique_ptr<LossScaler> scaler_;
  int64_t num_update_ = 0, num_skipped_ = 0;
  int rank_ = 0, ranks_ = 1;
  std::unique_ptr<dist::GradientReducer> reducer_;
};

}  // namespace train
}  // namespace symnet

#endif  // SYMNET_TRAIN_H_
