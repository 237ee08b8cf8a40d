/*! \brief Executor: a symbol bound to a device and arrays, run as a flat list of op calls. */
#ifndef SYMNET_EXECUTOR_H_
#define SYMNET_EXECUTOR_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symnet/ndarray.h"
#include "symnet/pass.h"
#include "symnet/symbol.h"

namespace symnet {

/*! \brief What to do with an argument's gradient. */
enum class GradReq { kNull, kWrite, kAdd };

/*! \brief "null" | "write" | "add" -> GradReq (throws on others). */
GradReq GradReqFromString(const std::string& s);

/*!
 * \brief How a bind plans and runs a graph, given explicitly to Bind/SimpleBind (Python:
 *  `simple_bind(..., options={...})`). Environment variables are only the defaults, read in one
 *  place: BindOptions::FromEnvironment().
 */
struct BindOptions {
  /*!
   * \brief The layout plan. "auto": each region of layout-aware ops (convolutions, BatchNorm,
   *  pooling, ...) in the layout its ops prefer on this device (nChw8c on AVX2, nChw16c on
   *  AVX-512, NHWC where channels fit no block or on a GPU); "NHWC": channels-last for every such
   *  region, never blocked; "off": every array in the default (NCHW) layout.
   *  Default: SYMNET_LAYOUT, else "off" when SYMNET_CHANNELS_LAST=0, else "auto".
   */
  std::string layout = "auto";
  /*! \brief GPU steps captured and replayed as CUDA graphs. Default: SYMNET_CUDA_GRAPHS=1. */
  bool cuda_graphs = false;
  /*!
   * \brief The most temporary memory one GPU convolution may use, in MiB, over its own
   *  `workspace` attribute (ConvWorkspaceLimit). Default: SYMNET_CUDNN_WORKSPACE_MB, else 1024.
   */
  uint64_t workspace_mb = 1024;
  /*!
   * \brief Executors that compute no gradient (inference binds) on the CPU fold each
   *  Convolution -> BatchNorm (-> ReLU) chain into one convolution (FuseConvBatchNorm); a forward
   *  with is_train=True still means what the unfused graph means. Default: SYMNET_FUSE=0 turns
   *  it off.
   */
  bool fuse = true;

  /*! \brief The defaults: the fields above from the environment (read once per process). */
  static const BindOptions& FromEnvironment();
  /*! \brief Throws naming the field when a value is not one the field accepts. */
  void Validate() const;
};

/*! \brief Whether binds merge common subexpressions (MXNET_ELIMINATE_COMMON_EXPR, default on
 *  as in MXNet; "0" turns it off), read at every bind. */
bool EliminateCommonExprEnabled();

/*!
 * \brief A bound symbol. Binding runs the passes once (gradient, shape/type inference, memory
 *  planning) and resolves every op call's input and output pointers; Forward and Backward then
 *  only walk that list: no allocation, no graph work per step.
 */
class Executor {
 public:
  /*!
   * \brief Binds to given arrays, ordered like ListArguments() / ListAuxiliaryStates().
   * \param arg_grads gradient arrays (a none NDArray where grad_reqs is kNull)
   * \param shared an executor whose internal memory (activations, outputs, workspace) this one
   *  reuses when it is large enough and on the same device (MXNet's shared_exec: bucketing,
   *  Executor.reshape); the two must not run at the same time
   */
  static std::unique_ptr<Executor> Bind(const Symbol& symbol, Device dev,
                                        const std::vector<NDArray>& args,
                                        const std::vector<NDArray>& arg_grads,
                                        const std::vector<GradReq>& grad_reqs,
                                        const std::vector<NDArray>& aux_states,
                                        const BindOptions& options = BindOptions::FromEnvironment(),
                                        const Executor* shared = nullptr);
  /*!
   * \brief Infers every shape/dtype from the given ones and allocates all arrays (zeros).
   * \param grad_reqs per argument name; arguments not listed get `default_req`
   */
  static std::unique_ptr<Executor> SimpleBind(
      const Symbol& symbol, Device dev, const std::map<std::string, Shape>& shapes,
      const std::map<std::string, DType>& dtypes = {},
      const std::map<std::string, GradReq>& grad_reqs = {}, GradReq default_req = GradReq::kWrite,
      const BindOptions& options = BindOptions::FromEnvironment());
  ~Executor();

  /*! \brief Runs the forward op calls. is_train selects training behaviour (BatchNorm, Dropout). */
  void Forward(bool is_train);
  /*!
   * \brief Runs the backward op calls, writing (or adding) into the gradient arrays.
   * \param head_grads one per output; empty means ones for every output (loss heads ignore it)
   */
  void Backward(const std::vector<NDArray>& head_grads = {});

  const std::vector<NDArray>& outputs() const { return outputs_; }
  const std::vector<NDArray>& arg_arrays() const { return args_; }
  const std::vector<NDArray>& grad_arrays() const { return grads_; }
  const std::vector<NDArray>& aux_arrays() const { return aux_; }
  const std::vector<GradReq>& grad_reqs() const { return grad_reqs_; }
  const Symbol& symbol() const { return symbol_; }
  /*! \brief The forward graph this executor runs, after the bind's rewrites (common
   *  subexpressions merged, fusions): MXNet's Executor.get_optimized_symbol. */
  const Symbol& optimized_symbol() const { return optimized_; }
  Device device() const { return dev_; }
  const BindOptions& options() const { return options_; }
  const MemoryReport& memory_report() const { return report_; }
  /*! \brief One line per op call: name, op, output shapes, arena offsets; then the report. */
  std::string DebugString() const;

  /*!
   * \brief The loss scale of mixed-precision training: loss heads multiply their gradients by
   *  it and default head gradients are filled with it. Takes effect at the next Backward.
   */
  void SetLossScale(float scale);
  float loss_scale() const;

  /*!
   * \brief Called during Backward with an argument's index (ListArguments order) as soon as the
   *  op that writes its gradient has run (gradients no op writes: before the first op). A
   *  distributed gradient reducer starts summing a bucket there while backward goes on. Steps
   *  are not captured as CUDA graphs while it is set. An empty function removes it.
   */
  void SetGradientReadyCallback(std::function<void(size_t arg_index)> callback);
  /*! \brief The arguments with a gradient, in the order Backward makes their gradients final. */
  std::vector<size_t> GradientReadyOrder() const;

  /*! \brief Per-op timing: when on, every call is timed and summed per operator name. */
  void SetProfiling(bool on);
  /*! \brief Operator name -> (seconds, calls) since profiling was switched on. */
  std::map<std::string, std::pair<double, int64_t>> OpProfile() const;

  /*!
   * \brief Called after every op call of Forward and Backward with a name and a copy of each
   *  output in the default layout ("<node>_output", or "<node>_<output name>" for ops with
   *  several), and with monitor_all also each input ("<node>_<input name>"), as MXNet's
   *  executor monitor. Steps are not captured as CUDA graphs while it is set. An empty function
   *  removes it.
   */
  using MonitorCallback = std::function<void(const std::string& name, const NDArray& value)>;
  void SetMonitorCallback(MonitorCallback callback, bool monitor_all = false);

  struct Impl;

 private:
  Executor() = default;
  Symbol symbol_, optimized_;
  Device dev_;
  std::vector<NDArray> args_, grads_, aux_, outputs_;
  std::vector<GradReq> grad_reqs_;
  BindOptions options_;
  MemoryReport report_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace symnet

#endif  // SYMNET_EXECUTOR_H_
