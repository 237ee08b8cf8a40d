/*! \brief Bind (passes + memory plan + pre-resolved op calls), Forward and Backward. */
#include <dmlc/logging.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "src/device/device_ops.h"
#include "symnet/executor.h"
#include "symnet/op_attr_types.h"
#include "symnet/profiler.h"

namespace symnet {

GradReq GradReqFromString(const std::string& s) {
  if (s == "null") return GradReq::kNull;
  if (s == "write" || s == "inplace") return GradReq::kWrite;
  if (s == "add") return GradReq::kAdd;
  SYMNET_THROW << "unknown grad_req '" << s << "'; expected 'write', 'add' or 'null'";
}

/*!
 * \brief The write version of an amp_cast's output in the arena: it follows the version of the
 *  array cast (the cast is a pure function of it), so a convolution reading the 16-bit copy of
 *  an unchanged weight may keep its reordered weights. Its own stamps are fresh (see
 *  ContentVersion), so it never names another buffer's contents.
 */
struct DerivedVersion {
  const ContentVersion* source = nullptr;
  ContentVersion version;
  uint64_t seen = 0;  // the source stamp the output was last made from; 0: none yet
  /*! \param before the source's stamp when the cast started */
  void After(uint64_t before) {
    const uint64_t now = source->stamp();
    if (now == 0) version.Untrack();
    if (before == now && now == seen) return;  // made from the same contents as last time
    version.Bump();
    seen = before == now ? now : 0;  // written during the cast: never trust this copy
  }
};

/*! \brief One pre-resolved kernel call. */
struct OpCall {
  const Node* node;
  const FCompute* fn;
  std::vector<TBlob> in, out;
  std::vector<OpReqType> req;
  std::unique_ptr<OpState> state;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  // write versions of arrays (not arena memory) this call writes: bumped after it ran, as
  // NDArray::dptr() bumps them for writes outside executors (outputs, mutated inputs)
  std::vector<const ContentVersion*> writes;
  DerivedVersion* derived = nullptr;  // an amp_cast of an array into the arena
};

struct Executor::Impl {
  std::vector<OpCall> calls;
  size_t num_forward_calls = 0;
  StoragePtr arena;
  std::vector<std::unique_ptr<DerivedVersion>> derived;
  std::vector<NDArray> head_grads;  // none where the head gradient is never read
  bool head_grads_filled = false;
  std::vector<std::string> output_names;
  std::unique_ptr<IndexedGraph> graph;
  bool profiling = false;
  const BindOptions* options = nullptr;  // the owning Executor's (it outlives this Impl)
  float loss_scale = 1.0f;
  float head_grads_scale = 0.0f;  // the scale the default head gradients were filled with
  std::map<std::string, std::pair<double, int64_t>> profile;
  // gradient readiness for distributed reducers: argument indices whose gradient is final after
  // call i (by call index), and those no call writes (final before backward starts)
  std::vector<std::vector<size_t>> grads_ready_after;
  std::vector<size_t> grads_ready_first;
  std::function<void(size_t)> grad_ready;
  Executor::MonitorCallback monitor;
  bool monitor_all = false;
  // per call: the monitor's names of its outputs (then, with monitor_all, of its inputs); empty
  // for the layout conversions the executor inserted, which the user's graph does not have
  std::vector<std::vector<std::string>> monitor_names;

  /*! \brief CUDA graphs of this executor's steps, by (first call, end, is_train, loss scale):
   *  kernel arguments such as the loss scale are fixed when a step is captured. */
  struct CapturedStep {
    void* graph = nullptr;
    uint64_t generation = 0;  // the device's scratch generation at capture
    int plain_runs = 0;
    bool failed = false;
  };
  std::map<std::tuple<size_t, size_t, bool, float>, CapturedStep> captured;
  bool capturable = true;  // false when an op draws fresh random numbers on every call

  ~Impl() {
    for (auto& kv : captured) cuda::DestroyGraph(kv.second.graph);
  }

  void Run(size_t begin, size_t end, bool is_train, Device dev) {
    if (dev.type == Device::kGPU && options->cuda_graphs && capturable && !profiling &&
        !grad_ready && !monitor && !profiler::Recording(profiler::Category::kSymbolic) &&
        RunCaptured(begin, end, is_train, dev)) {
      for (size_t i = begin; i < end; ++i) Written(calls[i], 0);
    } else {
      RunCalls(begin, end, is_train, dev);
    }
    // the outputs are NDArray views of the arena, which the user may hand to other kernels
    arena->version().Bump();
  }

  /*! \brief After call c ran: the arrays it wrote have new contents (see OpCall::writes). */
  static void Written(const OpCall& c, uint64_t source_before) {
    for (const ContentVersion* v : c.writes) v->Bump();
    if (c.derived) c.derived->After(source_before);
  }

  /*!
   * \brief With BindOptions::cuda_graphs: the first run of a step is plain (it creates the ops'
   *  states and grows the workspaces), the second is captured as a CUDA graph and every later one
   *  replays it with one launch. Returns false when the step must run plainly.
   */
  bool RunCaptured(size_t begin, size_t end, bool is_train, Device dev) {
    if (captured.size() > 16) {  // e.g. many loss scales over a long run: start over
      for (auto& kv : captured) cuda::DestroyGraph(kv.second.graph);
      captured.clear();
    }
    CapturedStep& step = captured[std::make_tuple(begin, end, is_train, loss_scale)];
    if (step.graph != nullptr && step.generation != cuda::ScratchGeneration(dev.id)) {
      // scratch memory the graph points into was replaced (another executor grew it): recapture
      cuda::DestroyGraph(step.graph);
      step.graph = nullptr;
    }
    if (step.graph == nullptr && !step.failed && step.plain_runs >= 1) {
      const uint64_t generation = cuda::ScratchGeneration(dev.id);
      cuda::BeginCapture(dev.id);
      try {
        RunCalls(begin, end, is_train, dev);
      } catch (...) {
        cuda::EndCapture(dev.id);
        step.failed = true;  // run it plainly below (a real error shows up again there)
        return false;
      }
      step.graph = cuda::EndCapture(dev.id);
      step.generation = generation;
      if (step.graph != nullptr && generation != cuda::ScratchGeneration(dev.id)) {
        // scratch grew while capturing (the capture would then have failed anyway): not usable
        cuda::DestroyGraph(step.graph);
        step.graph = nullptr;
      }
      if (step.graph == nullptr) {
        step.failed = true;
        LOG(WARNING) << "symnet: capturing a step as a CUDA graph failed; running it op by op";
      }
    }
    if (step.graph == nullptr) {
      ++step.plain_runs;
      return false;
    }
    cuda::LaunchGraph(dev.id, step.graph);
    return true;
  }

  void RunCalls(size_t begin, size_t end, bool is_train, Device dev) {
    OpContext ctx;
    ctx.is_train = is_train;
    ctx.dev = dev;
    ctx.loss_scale = loss_scale;
    ctx.workspace_cap_bytes = static_cast<size_t>(options->workspace_mb) << 20;
    // on a GPU the calls only enqueue work on the device's stream: no host sync per op
    if (dev.type == Device::kGPU) cuda::SetDevice(dev.id);
    const bool trace = profiler::Recording(profiler::Category::kSymbolic);
    const std::string dev_name = trace ? dev.ToString() : std::string();
    for (size_t i = begin; i < end; ++i) {
      OpCall& c = calls[i];
      ctx.temp = c.temp;
      ctx.temp_bytes = c.temp_bytes;
      ctx.state = &c.state;
      if (monitor && monitor_all) Monitor(i, dev, true);
      // one clock for the trace and the per-executor profile, read after the monitor's share
      const bool timed = profiling || trace;
      using Clock = std::chrono::steady_clock;  // profiler::NowMicros's clock, at full resolution
      const Clock::time_point start = timed ? Clock::now() : Clock::time_point();
      const uint64_t source_before = c.derived ? c.derived->source->stamp() : 0;
      try {
        (*c.fn)(c.node->attrs, ctx, c.in, c.req, c.out);
      } catch (const Error& e) {
        Written(c, 0);  // it may have written part of its outputs
        SYMNET_THROW << "error in node '" << c.node->attrs.name << "' (operator "
                     << c.node->op()->name << "): " << e.what();
      }
      Written(c, source_before);
      if (timed) {
        if (dev.type == Device::kGPU) cuda::Synchronize(dev.id);  // the kernel, not the launch
        const Clock::time_point end = Clock::now();
        const auto us = [](Clock::time_point t) {
          return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch())
              .count();
        };
        if (trace)
          profiler::RecordSpan(profiler::Category::kSymbolic, c.node->op()->name, dev_name,
                               c.node->attrs.name, us(start), us(end));
        if (profiling) {
          // SYMNET_PROFILE_NODES=1 times every node on its own ("op node"), not per op type
          static const bool by_node = std::getenv("SYMNET_PROFILE_NODES") != nullptr;
          auto& p =
              profile[by_node ? c.node->op()->name + " " + c.node->attrs.name : c.node->op()->name];
          p.first += std::chrono::duration<double>(end - start).count();
          ++p.second;
        }
      }
      if (monitor) Monitor(i, dev, false);
      if (grad_ready)
        for (size_t arg : grads_ready_after[i]) grad_ready(arg);
    }
  }

  /*!
   * \brief Hands call i's inputs (before it runs: an in-place op overwrites them) or its
   *  outputs (after) to the monitor.
   */
  void Monitor(size_t i, Device dev, bool inputs) {
    const OpCall& c = calls[i];
    const std::vector<std::string>& names = monitor_names[i];
    if (names.empty()) return;
    if (inputs) {
      for (size_t k = 0; k < c.in.size() && c.out.size() + k < names.size(); ++k) {
        monitor(names[c.out.size() + k], DefaultLayoutView(c.in[k], dev));
        // the callback got a writable array over the input's memory
        if (c.in[k].version_) c.in[k].version_->Bump();
      }
      return;
    }
    for (size_t k = 0; k < c.out.size(); ++k) {
      if (names[k].empty()) continue;
      if (c.req[k] == kNullOp) {
        // a gradient nothing reads (of the data, of a label) is not computed; MXNet's monitor
        // still reports it, with whatever its buffer holds: zeros here
        monitor(names[k], NDArray::Zeros(c.out[k].shape_, dev, c.out[k].dtype_));
        continue;
      }
      monitor(names[k], DefaultLayoutView(c.out[k], dev));
    }
  }

  /*!
   * \brief An NDArray over a blob: a view when it is in the default layout (valid while the
   *  arena is), else a copy converted to it by the layout-conversion kernel.
   */
  static NDArray DefaultLayoutView(const TBlob& b, Device dev) {
    const NDArray view(BorrowStorage(b.dptr_, b.Bytes(), dev), 0, b.shape_, b.dtype_);
    if (b.layout_ == Layout::kDefault) return view;
    NDArray out(b.shape_, dev, b.dtype_);
    static const Op* convert = Op::Get("_convert_layout");
    const FCompute* fn = convert->attr<FCompute>(FComputeKey(dev));
    SYMNET_CHECK(fn != nullptr) << "monitor: no layout conversion for " << dev;
    OpContext ctx;
    ctx.dev = dev;
    std::unique_ptr<OpState> state;
    ctx.state = &state;
    NodeAttrs attrs;
    attrs.op = convert;
    (*fn)(attrs, ctx, {b}, {kWriteTo}, {out.data()});
    return out;
  }
};

Executor::~Executor() = default;

namespace {

std::string JoinNames(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/*!
 * \brief Shapes and dtypes of every entry: variables from their arrays, head gradients from
 *  the outputs they belong to; throws naming the nodes left unknown.
 */
void InferGraph(const IndexedGraph& g, const std::unordered_map<const Node*, NDArray>& var_arrays,
                const std::vector<NodePtr>& head_grad_nodes, std::vector<Shape>* shapes,
                std::vector<DType>* types) {
  shapes->assign(g.num_entries(), Shape());
  types->assign(g.num_entries(), DType::kUnknown);
  for (const auto& kv : var_arrays) {
    if (!g.has_node(kv.first)) continue;
    const uint32_t e = g.entry_id(g.node_id(kv.first), 0);
    (*shapes)[e] = kv.second.shape();
    (*types)[e] = kv.second.dtype();
  }
  InferShapes(g, shapes);
  InferTypes(g, types);
  for (size_t i = 0; i < head_grad_nodes.size(); ++i) {
    if (!g.has_node(head_grad_nodes[i].get())) continue;
    const uint32_t e = g.entry_id(g.node_id(head_grad_nodes[i].get()), 0);
    (*shapes)[e] = (*shapes)[g.entry_id(g.outputs()[i])];
    (*types)[e] = (*types)[g.entry_id(g.outputs()[i])];
  }
  if (InferShapes(g, shapes) == 0 && InferTypes(g, types) == 0) return;
  std::string unknown;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (uint32_t i = 0; i < g.node(nid).num_outputs(); ++i) {
      const uint32_t e = g.entry_id(nid, i);
      if (!(*shapes)[e].is_known() || (*types)[e] == DType::kUnknown)
        unknown += (unknown.empty() ? "" : ", ") + g.node(nid).attrs.name;
    }
  SYMNET_THROW << "bind: cannot infer the shape or dtype of: " << unknown;
}

}  // namespace

std::unique_ptr<Executor> Executor::Bind(const Symbol& symbol, Device dev,
                                         const std::vector<NDArray>& args,
                                         const std::vector<NDArray>& arg_grads,
                                         const std::vector<GradReq>& grad_reqs,
                                         const std::vector<NDArray>& aux_states,
                                         const BindOptions& options, const Executor* shared) {
  options.Validate();
  std::unique_ptr<Executor> exe(new Executor());
  exe->impl_ = std::make_unique<Impl>();
  Impl& impl = *exe->impl_;
  exe->symbol_ = symbol;
  exe->dev_ = dev;
  exe->options_ = options;
  impl.options = &exe->options_;
  const std::vector<NodePtr> arg_nodes = symbol.ArgumentNodes();
  const std::vector<NodePtr> aux_nodes = symbol.AuxiliaryNodes();
  std::vector<std::string> arg_names;
  for (const auto& n : arg_nodes) arg_names.push_back(n->attrs.name);
  SYMNET_CHECK_EQ(args.size(), arg_nodes.size())
      << "bind: expected one array per argument (" << JoinNames(arg_names) << ")";
  SYMNET_CHECK_EQ(aux_states.size(), aux_nodes.size())
      << "bind: expected one array per auxiliary state";
  SYMNET_CHECK(grad_reqs.size() == arg_nodes.size() && arg_grads.size() == arg_nodes.size())
      << "bind: expected one gradient array and grad_req per argument";
  exe->args_ = args;
  exe->aux_ = aux_states;
  exe->grad_reqs_ = grad_reqs;
  exe->grads_ = arg_grads;
  for (size_t i = 0; i < args.size(); ++i) {
    SYMNET_CHECK(!args[i].is_none()) << "bind: argument '" << arg_names[i] << "' has no array";
    SYMNET_CHECK(args[i].device() == dev) << "bind: argument '" << arg_names[i] << "' is on "
                                          << args[i].device() << " but the executor on " << dev;
    if (grad_reqs[i] != GradReq::kNull) {
      SYMNET_CHECK(!arg_grads[i].is_none()) << "bind: argument '" << arg_names[i]
                                            << "' needs a gradient array (grad_req is not null)";
      SYMNET_CHECK(arg_grads[i].shape() == args[i].shape() &&
                   arg_grads[i].dtype() == args[i].dtype())
          << "bind: gradient array of '" << arg_names[i] << "' has shape " << arg_grads[i].shape()
          << " and dtype " << arg_grads[i].dtype() << "; expected " << args[i].shape() << " and "
          << args[i].dtype();
    }
  }

  // 1. the whole graph: forward heads, then gradients of the arguments that need them. The
  //    executor works on its own copy of the graph because the layout plan rewrites it.
  Symbol gsym = symbol.Copy();
  const std::vector<NodePtr> g_args = gsym.ArgumentNodes(), g_aux = gsym.AuxiliaryNodes();
  if (EliminateCommonExprEnabled()) EliminateCommonExpr(&gsym.outputs);
  const bool any_grad = std::any_of(grad_reqs.begin(), grad_reqs.end(),
                                    [](GradReq r) { return r != GradReq::kNull; });
  // training binds fuse what oneDNN or one loop can do in one pass (BatchNorm + ReLU, a residual
  // sum + ReLU); the fused nodes bring their own backward ops, so this precedes the gradient
  const bool fuse_cpu = options.fuse && dev.type == Device::kCPU;
  if (!any_grad && fuse_cpu) FuseConvBatchNorm(&gsym.outputs);
  if (any_grad && fuse_cpu) {
    FuseBatchNormReLU(&gsym.outputs);
    FuseAddReLU(&gsym.outputs);
  }
  exe->optimized_ = gsym.Copy();  // (the layout plan below rewrites gsym's nodes)
  std::vector<NodeEntry> heads = gsym.outputs;
  const size_t num_outputs = heads.size();
  std::vector<NodePtr> xs;
  std::vector<size_t> x_arg_index;
  for (size_t i = 0; i < g_args.size(); ++i)
    if (grad_reqs[i] != GradReq::kNull) {
      xs.push_back(g_args[i]);
      x_arg_index.push_back(i);
    }
  std::vector<NodePtr> head_grad_nodes;
  std::vector<NodeEntry> grad_entries;
  if (!xs.empty()) {
    std::vector<NodeEntry> ys_grads;
    for (size_t i = 0; i < num_outputs; ++i) {
      head_grad_nodes.push_back(Node::Variable(OutputName(heads[i]) + "_head_grad"));
      ys_grads.push_back(NodeEntry{head_grad_nodes.back(), 0, 0});
    }
    grad_entries = Gradient(heads, xs, ys_grads);
    heads.insert(heads.end(), grad_entries.begin(), grad_entries.end());
    if (fuse_cpu && FuseGradSumReLU(&heads) > 0)  // a gradient sum read only by a ReLU's gradient
      grad_entries.assign(heads.begin() + num_outputs, heads.end());
  }
  std::unordered_map<const Node*, NDArray> var_arrays;
  for (size_t i = 0; i < g_args.size(); ++i) var_arrays[g_args[i].get()] = args[i];
  for (size_t i = 0; i < g_aux.size(); ++i) var_arrays[g_aux[i].get()] = aux_states[i];

  // 2. shapes and dtypes (from the arrays, head gradients from the outputs), then the layout
  //    plan; conversions it inserts change the graph, so it is analysed once more
  std::unique_ptr<IndexedGraph> gp;
  std::vector<Shape> shapes;
  std::vector<DType> types;
  std::vector<Layout> layouts;
  for (int round = 0; round < 2; ++round) {
    gp = std::make_unique<IndexedGraph>(heads);
    InferGraph(*gp, var_arrays, head_grad_nodes, &shapes, &types);
    std::vector<bool> pinned(gp->num_entries(), false);
    for (uint32_t nid : gp->input_nodes()) pinned[gp->entry_id(nid, 0)] = true;
    for (size_t i = 0; i < gp->outputs().size(); ++i) pinned[gp->entry_id(gp->outputs()[i])] = true;
    const bool gpu = dev.type == Device::kGPU;
    const LayoutTarget target = options.layout == "NHWC" ? LayoutTarget::kChannelsLast
                                : gpu                    ? LayoutTarget::kGPU
                                                         : LayoutTarget::kCPU;
    layouts = PlanLayout(*gp, shapes, types, pinned, target);
    if (options.layout == "off") layouts.assign(layouts.size(), Layout::kDefault);
    if (round == 0 && InsertLayoutConversions(*gp, layouts) == 0) break;
  }
  const IndexedGraph& g = *gp;
  size_t num_forward_nodes = 0;
  DFSVisit(gsym.outputs, [&](const NodePtr&) { ++num_forward_nodes; });

  // 3. memory: which entries own memory, which must outlive the graph, then the plan
  std::vector<bool> external(g.num_entries(), false), keep_alive(g.num_entries(), false);
  for (uint32_t nid : g.input_nodes()) external[g.entry_id(nid, 0)] = true;
  std::unordered_map<uint32_t, size_t> grad_of_entry;  // entry -> argument index
  for (size_t k = 0; k < grad_entries.size(); ++k) {
    const uint32_t e = g.entry_id(grad_entries[k]);
    external[e] = true;
    grad_of_entry[e] = x_arg_index[k];
  }
  for (size_t i = 0; i < num_outputs; ++i) keep_alive[g.entry_id(g.outputs()[i])] = true;
  std::vector<uint32_t> order;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    if (!g.node(nid).is_variable()) order.push_back(nid);
  MemoryPlan plan = PlanMemory(g, shapes, types, external, keep_alive, order);
  exe->report_ = plan.report;
  const StoragePtr pool = shared != nullptr ? shared->impl_->arena : nullptr;
  impl.arena = pool && pool->bytes() >= plan.report.arena_bytes && pool->device() == dev
                   ? pool
                   : AllocStorage(plan.report.arena_bytes, dev);

  // 4. every entry's memory
  std::vector<TBlob> blobs(g.num_entries());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    for (uint32_t i = 0; i < n.num_outputs(); ++i) {
      const uint32_t e = g.entry_id(nid, i);
      if (plan.entry_offset[e] != MemoryPlan::kExternal) {
        blobs[e] = TBlob(static_cast<char*>(impl.arena->ptr()) + plan.entry_offset[e], shapes[e],
                         types[e], dev);
        blobs[e].layout_ = layouts[e];
      }
    }
  }
  for (const auto& kv : var_arrays)
    if (g.has_node(kv.first)) blobs[g.entry_id(g.node_id(kv.first), 0)] = kv.second.data();
  impl.head_grads.resize(num_outputs);
  for (size_t i = 0; i < head_grad_nodes.size(); ++i) {
    if (!g.has_node(head_grad_nodes[i].get())) continue;
    const uint32_t e = g.entry_id(g.node_id(head_grad_nodes[i].get()), 0);
    impl.head_grads[i] = NDArray(shapes[e], dev, types[e]);
    blobs[e] = impl.head_grads[i].data();
  }
  for (const auto& kv : grad_of_entry) blobs[kv.first] = arg_grads[kv.second].data();
  // an amp_cast of an array into the arena gets a write version that follows the array's
  static const Op* amp_cast = Op::Get("amp_cast");
  std::unordered_map<uint32_t, DerivedVersion*> derived_of_node;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable() || n.op() != amp_cast || g[nid].inputs.size() != 1) continue;
    const uint32_t e = g.entry_id(nid, 0);
    const TBlob& src = blobs[g.entry_id(g[nid].inputs[0])];
    if (src.version_ == nullptr || plan.entry_offset[e] == MemoryPlan::kExternal ||
        src.dptr_ == blobs[e].dptr_)
      continue;
    impl.derived.push_back(std::make_unique<DerivedVersion>());
    impl.derived.back()->source = src.version_;
    blobs[e].version_ = &impl.derived.back()->version;
    derived_of_node[nid] = impl.derived.back().get();
  }

  // 5. the op calls, in order; forward nodes come first in the indexed graph. A gradient output
  //    that nothing reads (the data gradient of the first convolution when the data needs none)
  //    is requested as kNullOp, so the kernel skips it: computing it ran oneDNN's reference
  //    kernel for the 3-channel stem, seconds per step.
  std::vector<bool> read(g.num_entries(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& in : g[nid].inputs) read[g.entry_id(in)] = true;
  for (const auto& out : g.outputs()) read[g.entry_id(out)] = true;
  for (uint32_t nid : order) {
    const Node& n = g.node(nid);
    const FCompute* fn = n.op()->attr<FCompute>(FComputeKey(dev));
    SYMNET_CHECK(fn != nullptr) << "operator " << n.op()->name << " (node '" << n.attrs.name
                                << "') has no kernel for " << dev
                                << (dev.type == Device::kGPU
                                        ? " (docs/gpu.md lists the ops that run on a GPU)"
                                        : "");
    OpCall c;
    c.node = &n;
    c.fn = fn;
    for (const auto& in : g[nid].inputs) c.in.push_back(blobs[g.entry_id(in)]);
    auto it_derived = derived_of_node.find(nid);
    if (it_derived != derived_of_node.end()) c.derived = it_derived->second;
    // the arrays it writes: outputs, inputs it mutates (BatchNorm's moving statistics, optimizer
    // states) and, for host callbacks (Custom) whose code sees every input writable, all inputs
    auto writes = [&c](const TBlob& b) {
      if (b.version_ && std::find(c.writes.begin(), c.writes.end(), b.version_) == c.writes.end())
        c.writes.push_back(b.version_);
    };
    const THostCallback* host_code = n.op()->attr<THostCallback>("THostCallback");
    if (host_code && *host_code) {
      for (const TBlob& b : c.in) writes(b);
    } else if (const auto* fmut = n.op()->attr<FMutateInputs>("FMutateInputs")) {
      for (uint32_t k : (*fmut)(n.attrs))
        if (k < c.in.size()) writes(c.in[k]);
    }
    for (uint32_t i = 0; i < n.num_outputs(); ++i) {
      const uint32_t e = g.entry_id(nid, i);
      c.out.push_back(blobs[e]);
      if (c.derived == nullptr) writes(blobs[e]);
      OpReqType req = plan.inplace_source[e] >= 0 ? kWriteInplace : kWriteTo;
      const TIsBackward* backward = n.op()->attr<TIsBackward>("TIsBackward");
      if (!read[e] && !keep_alive[e] && backward && *backward) req = kNullOp;
      auto it = grad_of_entry.find(e);
      if (it != grad_of_entry.end() && grad_reqs[it->second] == GradReq::kAdd) req = kAddTo;
      if (it != grad_of_entry.end()) {
        impl.grads_ready_after.resize(impl.calls.size() + 1);
        impl.grads_ready_after[impl.calls.size()].push_back(it->second);
      }
      c.req.push_back(req);
    }
    if (plan.temp_bytes[nid] > 0) {
      c.temp = static_cast<char*>(impl.arena->ptr()) + plan.temp_offset[nid];
      c.temp_bytes = plan.temp_bytes[nid];
    }
    if (nid < num_forward_nodes) ++impl.num_forward_calls;
    const TDrawsRandom* draws = n.op()->attr<TDrawsRandom>("TDrawsRandom");
    if (draws && *draws) impl.capturable = false;  // a replayed graph would repeat its numbers
    const THostCallback* host = n.op()->attr<THostCallback>("THostCallback");
    if (host && *host) impl.capturable = false;  // a replay would skip the host code
    impl.calls.push_back(std::move(c));
  }

  impl.grads_ready_after.resize(impl.calls.size());
  std::vector<bool> written(arg_grads.size(), false);
  for (const auto& args : impl.grads_ready_after)
    for (size_t a : args) written[a] = true;
  for (size_t a = 0; a < arg_grads.size(); ++a)
    if (!arg_grads[a].is_none() && grad_reqs[a] != GradReq::kNull && !written[a])
      impl.grads_ready_first.push_back(a);

  // 6. output arrays: views of the arena (or the variable's own array)
  for (size_t i = 0; i < num_outputs; ++i) {
    const uint32_t e = g.entry_id(g.outputs()[i]);
    const Node& n = g.node(g.outputs()[i].node_id);
    if (n.is_variable()) {
      exe->outputs_.push_back(var_arrays.at(&n));
    } else {
      exe->outputs_.push_back(NDArray(impl.arena, plan.entry_offset[e], shapes[e], types[e]));
    }
    impl.output_names.push_back(OutputName(symbol.outputs[i]));
  }
  // the calls point at nodes (gradient nodes included) that the indexed graph owns
  impl.graph = std::move(gp);
  return exe;
}

std::unique_ptr<Executor> Executor::SimpleBind(const Symbol& symbol, Device dev,
                                               const std::map<std::string, Shape>& shapes,
                                               const std::map<std::string, DType>& dtypes,
                                               const std::map<std::string, GradReq>& grad_reqs,
                                               GradReq default_req, const BindOptions& options) {
  std::vector<Shape> arg_shapes, out_shapes, aux_shapes;
  symbol.InferShape(shapes, &arg_shapes, &out_shapes, &aux_shapes, true);
  std::vector<DType> arg_types, out_types, aux_types;
  std::map<std::string, DType> known_types = dtypes;
  symbol.InferType(known_types, &arg_types, &out_types, &aux_types, true);
  const auto arg_names = symbol.ListArguments();
  const auto aux_names = symbol.ListAuxiliaryStates();
  std::string missing;
  for (size_t i = 0; i < arg_names.size(); ++i)
    if (!arg_shapes[i].is_known()) missing += (missing.empty() ? "" : ", ") + arg_names[i];
  for (size_t i = 0; i < aux_names.size(); ++i)
    if (!aux_shapes[i].is_known()) missing += (missing.empty() ? "" : ", ") + aux_names[i];
  SYMNET_CHECK(missing.empty()) << "simple_bind: cannot infer the shapes of " << missing
                                << " from the given shapes; give them explicitly";
  for (const auto& kv : grad_reqs) {
    bool found = false;
    for (const auto& n : arg_names) found = found || n == kv.first;
    SYMNET_CHECK(found) << "simple_bind: grad_req given for '" << kv.first
                        << "', which is not an argument";
  }
  // dtypes default to float32 where nothing decides them
  auto type_or_default = [](DType t) { return t == DType::kUnknown ? DType::kFloat32 : t; };
  std::vector<NDArray> args, grads, aux;
  std::vector<GradReq> reqs;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    const DType t = type_or_default(arg_types[i]);
    args.push_back(NDArray::Zeros(arg_shapes[i], dev, t));
    auto it = grad_reqs.find(arg_names[i]);
    const GradReq r = it == grad_reqs.end() ? default_req : it->second;
    reqs.push_back(r);
    grads.push_back(r == GradReq::kNull ? NDArray() : NDArray::Zeros(arg_shapes[i], dev, t));
  }
  for (size_t i = 0; i < aux_names.size(); ++i)
    aux.push_back(NDArray::Zeros(aux_shapes[i], dev, type_or_default(aux_types[i])));
  return Bind(symbol, dev, args, grads, reqs, aux, options);
}

void Executor::Forward(bool is_train) {
  profiler::Span span(profiler::Category::kApi, "Executor::Forward", "api");
  impl_->Run(0, impl_->num_forward_calls, is_train, dev_);
}

void Executor::Backward(const std::vector<NDArray>& head_grads) {
  profiler::Span span(profiler::Category::kApi, "Executor::Backward", "api");
  Impl& impl = *impl_;
  if (!head_grads.empty()) {
    SYMNET_CHECK_EQ(head_grads.size(), outputs_.size())
        << "backward: expected one head gradient per output";
    for (size_t i = 0; i < head_grads.size(); ++i) {
      if (impl.head_grads[i].is_none() || head_grads[i].is_none()) continue;
      SYMNET_CHECK(head_grads[i].shape() == impl.head_grads[i].shape())
          << "backward: head gradient " << i << " (" << impl.output_names[i] << ") has shape "
          << head_grads[i].shape() << "; expected " << impl.head_grads[i].shape();
      impl.head_grads[i].CopyFrom(head_grads[i]);
    }
    impl.head_grads_filled = false;
  } else if (!impl.head_grads_filled || impl.head_grads_scale != impl.loss_scale) {
    for (auto& h : impl.head_grads)
      if (!h.is_none()) h.Fill(impl.loss_scale);
    impl.head_grads_filled = true;
    impl.head_grads_scale = impl.loss_scale;
  }
  if (impl.grad_ready)
    for (size_t arg : impl.grads_ready_first) impl.grad_ready(arg);
  impl.Run(impl.num_forward_calls, impl.calls.size(), true, dev_);
}

void Executor::SetGradientReadyCallback(std::function<void(size_t)> callback) {
  impl_->grad_ready = std::move(callback);
}

std::vector<size_t> Executor::GradientReadyOrder() const {
  std::vector<size_t> order = impl_->grads_ready_first;
  for (const auto& args : impl_->grads_ready_after)
    order.insert(order.end(), args.begin(), args.end());
  return order;
}

void Executor::SetLossScale(float scale) {
  SYMNET_CHECK(scale > 0 && std::isfinite(scale))
      << "loss scale must be positive and finite, got " << scale;
  impl_->loss_scale = scale;
}

float Executor::loss_scale() const { return impl_->loss_scale; }

void Executor::SetMonitorCallback(MonitorCallback callback, bool monitor_all) {
  Impl& impl = *impl_;
  impl.monitor = std::move(callback);
  impl.monitor_all = monitor_all;
  impl.monitor_names.assign(impl.calls.size(), {});
  if (!impl.monitor) return;
  std::unordered_map<const Node*, NodePtr> owners;
  for (uint32_t nid = 0; nid < impl.graph->num_nodes(); ++nid)
    owners[&impl.graph->node(nid)] = (*impl.graph)[nid].node;
  for (size_t i = 0; i < impl.calls.size(); ++i) {
    const Node& n = *impl.calls[i].node;
    if (n.op()->name == "_convert_layout") continue;
    std::vector<std::string>& names = impl.monitor_names[i];
    // a node the bind's fusion made shows its visible outputs only: the others (a ReLU mask in
    // bytes, statistics nothing read) were never the user's; "" skips an output
    const auto* visible = n.op()->attr<FNumVisibleOutputs>("FNumVisibleOutputs");
    const bool fused = n.op()->name.compare(0, 6, "_Fused") == 0;
    const uint32_t shown = fused && visible ? (*visible)(n.attrs) : n.num_outputs();
    for (uint32_t k = 0; k < n.num_outputs(); ++k)
      names.push_back(k < shown ? OutputName(NodeEntry{owners.at(&n), k, 0}) : std::string());
    if (monitor_all) {
      // as MXNet's monitor: the op's own input names, else input0, input1, ...
      const auto* f = n.op()->attr<FListInputNames>("FListInputNames");
      const std::vector<std::string> in = f ? (*f)(n.attrs) : std::vector<std::string>();
      for (uint32_t k = 0; k < n.num_inputs(); ++k)
        names.push_back(n.attrs.name + "_" + (k < in.size() ? in[k] : "input" + std::to_string(k)));
    }
  }
}

void Executor::SetProfiling(bool on) {
  impl_->profiling = on;
  impl_->profile.clear();
}

std::map<std::string, std::pair<double, int64_t>> Executor::OpProfile() const {
  return impl_->profile;
}

std::string Executor::DebugString() const {
  std::ostringstream os;
  const char* arena = static_cast<const char*>(impl_->arena->ptr());
  for (size_t i = 0; i < impl_->calls.size(); ++i) {
    const OpCall& c = impl_->calls[i];
    os << (i < impl_->num_forward_calls ? "fwd " : "bwd ") << c.node->attrs.name << " ("
       << c.node->op()->name << ") ->";
    for (size_t k = 0; k < c.out.size(); ++k) {
      const char* p = static_cast<const char*>(c.out[k].dptr_);
      os << " " << c.out[k].shape_ << ":" << c.out[k].dtype_;
      if (p >= arena && p < arena + report_.arena_bytes) os << "@" << (p - arena);
      if (c.out[k].layout_ != Layout::kDefault) os << "(" << LayoutTag(c.out[k].layout_) << ")";
      if (c.req[k] == kWriteInplace) os << "(inplace)";
      if (c.req[k] == kAddTo) os << "(add)";
    }
    os << "\n";
  }
  os << "arena " << report_.arena_bytes << " bytes, no sharing " << report_.no_sharing_bytes
     << ", lower bound " << report_.lower_bound_bytes << ", in-place " << report_.num_inplace
     << ", external " << report_.external_bytes << "\n";
  return os.str();
}

}  // namespace symnet
