/*! \brief Imperative op invocation: parse, infer, allocate, run. */
#include <charconv>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "src/device/device_ops.h"
#include "src/imperative/amp_casts.h"
#include "symnet/amp.h"
#include "symnet/autograd.h"
#include "symnet/executor.h"
#include "symnet/imperative.h"
#include "symnet/op_attr_types.h"
#include "symnet/pass.h"
#include "symnet/profiler.h"

namespace symnet {

namespace {

/*! \brief A device as MXNet's Context prints it: "cpu(0)", "gpu(1)", "cpu_shared(0)"... */
Device DeviceFromText(const std::string& text) {
  const size_t open = text.find('(');
  const std::string type = text.substr(0, open);
  int id = 0;
  bool ok = type == "cpu" || type == "gpu" || type == "cpu_pinned" || type == "cpu_shared";
  if (ok && open != std::string::npos) {
    size_t used = 0;
    try {
      id = std::stoi(text.substr(open + 1), &used);
    } catch (const std::exception&) {
      ok = false;
    }
    ok = ok && id >= 0 && text.compare(open + 1 + used, std::string::npos, ")") == 0;
  }
  SYMNET_CHECK(ok) << "ctx '" << text << "' is not a device; expected cpu(N) or gpu(N)";
  if (type == "cpu_pinned") return Device{Device::kCPUPinned, id};
  if (type == "cpu_shared") return Device{Device::kCPUShared, id};
  return type == "gpu" ? Device::GPU(id) : Device::CPU(id);
}

/*! \brief Whether arrays on a and b can meet in one call: host memory of any kind and id mixes
 *  (as in MXNet, whose CPU kernels read all of it), a GPU only with itself. */
bool SameMemory(Device a, Device b) { return (a.is_host() && b.is_host()) || a == b; }

/*!
 * \brief The op states of imperative calls, per thread. A bound executor keeps each node's state
 *  (a oneDNN primitive, say) from call to call; an imperative call makes a new node every time,
 *  so without this it would build the primitive again on every call (a Dense layer's forward
 *  and backward GEMM plans were 11% of an imperative training step). A state is found again by
 *  (op, attributes, input shapes and dtypes, device, mode) and taken out while the call runs;
 *  GetState still checks that it fits, so a stale one is rebuilt, never misused. Ops that draw
 *  random numbers or call back into user code keep no cached state.
 */
class ImperativeStates {
 public:
  static constexpr size_t kCapacity = 256;

  /*!
   * \brief Whether calls of `op` may share states. Ops that draw random numbers or call back
   *  into user code never do; nor, until one of its calls makes a state, does any other op: most
   *  ops (relu, additions) never make one, and their calls then skip the key altogether.
   */
  bool Shares(const Op* op) const {
    if (!made_.count(op)) return false;
    const TDrawsRandom* draws = op->attr<TDrawsRandom>("TDrawsRandom");
    const THostCallback* host = op->attr<THostCallback>("THostCallback");
    return !(draws && *draws) && !(host && *host);
  }
  /*! \brief Notes that a call of `op` made a state; returns whether it was the first. */
  bool NoteMade(const Op* op) { return made_.insert(op).second; }

  /*! \brief The key of a call (built in a reused buffer: to_string temporaries cost more). */
  const std::string& Key(const Node& n, const std::vector<Shape>& shapes,
                         const std::vector<DType>& types, Device dev, bool is_train) {
    std::string& k = key_;
    k.assign(n.op()->name);
    k += '|';
    AppendInt(static_cast<int64_t>(dev.type) * 1024 + dev.id);
    k += is_train ? "|t" : "|i";
    for (const auto& kv : n.attrs.dict) {
      k += '|';
      k += kv.first;
      k += '=';
      k += kv.second;
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
      k += '|';
      AppendInt(static_cast<int>(types[i]));
      for (int d = 0; d < shapes[i].ndim(); ++d) {
        k += ',';
        AppendInt(shapes[i][d]);
      }
    }
    return k;
  }

  /*!
   * \brief Takes the state of `key` out for a call (null when there is none). Its entry stays,
   *  empty, so that Put finds it again without a new entry: a hit allocates nothing.
   */
  std::unique_ptr<OpState> Take(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return std::move(it->second->second);
  }

  void Put(const std::string& key, std::unique_ptr<OpState> s) {
    if (!s) return;
    auto it = index_.find(key);
    if (it != index_.end()) {
      // (a nested call of the same key may have put one back first: the first one stays)
      if (!it->second->second) it->second->second = std::move(s);
      return;
    }
    lru_.emplace_front(key, std::move(s));
    index_[key] = lru_.begin();
    if (lru_.size() > kCapacity) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }

 private:
  void AppendInt(int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    key_.append(buf, r.ptr);
  }

  std::string key_;
  std::unordered_set<const Op*> made_;
  std::list<std::pair<std::string, std::unique_ptr<OpState>>> lru_;
  std::unordered_map<std::string, decltype(lru_)::iterator> index_;
};

}  // namespace

std::vector<NDArray> InvokeNode(const NodePtr& n, const std::vector<NDArray>& inputs,
                                std::vector<NDArray> outputs, bool is_train) {
  const Op* op = n->op();
  auto where = [op] { return "operator " + op->name; };  // for messages only
  SYMNET_CHECK_EQ(inputs.size(), n->num_inputs())
      << where() << " takes " << n->num_inputs() << " inputs";
  const uint32_t nout = n->num_outputs();
  SYMNET_CHECK(outputs.size() <= nout) << where() << " has " << nout << " outputs";
  outputs.resize(nout);
  const auto& dict = n->attrs.dict;
  Device dev = Device::CPU();
  std::vector<Shape> in_shapes, out_shapes(nout);
  std::vector<DType> in_types, out_types(nout, DType::kUnknown);
  in_shapes.reserve(inputs.size());
  in_types.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray& a = inputs[i];
    SYMNET_CHECK(!a.is_none()) << where() << ": an input array is empty";
    in_shapes.push_back(a.shape());
    in_types.push_back(a.dtype());
    if (i == 0) dev = a.device();
    SYMNET_CHECK(SameMemory(a.device(), dev))
        << where() << ": input " << i << " is on " << a.device() << " but input 0 on " << dev
        << "; copy the inputs to one device first (copyto)";
  }
  // new outputs go to out_dev: after inputs on the host, cpu(id of input 0) whatever the kinds
  // (MXNet: cpu_shared(0) * 2 is on cpu(0), cpu_pinned(1) + cpu(0) on cpu(1))
  if (dev.is_host()) dev = Device::CPU(dev.id);
  Device out_dev = dev;
  if (inputs.empty()) {
    // an op without inputs (_zeros, _arange) is told its device by its ctx attribute, as MXNet's
    // (host kinds kept: nd.zeros(ctx=cpu_shared(0)) is on cpu_shared(0)); an output array given
    // to it decides instead
    auto ctx_attr = dict.find("ctx");
    if (ctx_attr != dict.end() && !ctx_attr->second.empty())
      out_dev = DeviceFromText(ctx_attr->second);
    for (const auto& o : outputs)
      if (!o.is_none()) out_dev = o.device();
    dev = out_dev.is_host() ? Device::CPU(out_dev.id) : out_dev;  // the kernel runs on the CPU
  }
  for (uint32_t i = 0; i < nout; ++i) {
    if (outputs[i].is_none()) continue;
    SYMNET_CHECK(SameMemory(outputs[i].device(), dev))
        << where() << ": output " << i << " is on " << outputs[i].device() << " but the inputs on "
        << dev;
    out_shapes[i] = outputs[i].shape();
    out_types[i] = outputs[i].dtype();
  }
  try {
    // a backward op without rules of its own runs on outputs its caller allocated (autograd
    // gives them its forward inputs' shapes, as the graph's inference pass does)
    const auto* fs = op->attr<FInferShape>("FInferShape");
    bool given = true;
    for (const auto& o : outputs) given = given && !o.is_none();
    SYMNET_CHECK(fs || given) << "no shape rule";
    if (fs) (*fs)(n->attrs, &in_shapes, &out_shapes);
    // what the op's rule leaves open, its fallback may settle (see src/pass/infer_attr.cc)
    const auto* fallback = op->attr<FInferShape>("FInferShapeFallback");
    bool open = false;
    for (const auto& s : out_shapes) open = open || !s.is_known();
    if (fallback != nullptr && open) (*fallback)(n->attrs, &in_shapes, &out_shapes);
    if (const auto* ft = op->attr<FInferType>("FInferType")) {
      (*ft)(n->attrs, &in_types, &out_types);
    } else {
      for (auto& t : out_types)
        if (t == DType::kUnknown && !in_types.empty()) t = in_types[0];
    }
  } catch (const InferError& e) {
    SYMNET_THROW << where() << ": " << (e.is_input ? "input " : "output ") << e.index << " has "
                 << e.actual << " but the operator expects " << e.expected;
  }
  for (uint32_t i = 0; i < nout; ++i) {
    if (!outputs[i].is_none()) continue;
    SYMNET_CHECK(out_shapes[i].is_known() && out_types[i] != DType::kUnknown)
        << where() << ": cannot infer the shape of output " << i;
    outputs[i] = NDArray(out_shapes[i], out_dev, out_types[i]);
  }
  std::vector<TBlob> in_blobs, out_blobs;
  in_blobs.reserve(inputs.size());
  out_blobs.reserve(nout);
  for (const auto& a : inputs) in_blobs.push_back(a.data());
  std::vector<OpReqType> req;
  req.reserve(nout);
  for (const auto& a : outputs) {
    out_blobs.push_back(a.data());
    bool aliased = false;
    for (const auto& b : inputs) aliased = aliased || b.dptr() == a.dptr();
    req.push_back(aliased ? kWriteInplace : kWriteTo);
  }
  OpContext ctx;
  ctx.dev = dev;
  ctx.is_train = is_train;
  ctx.workspace_cap_bytes = static_cast<size_t>(BindOptions::FromEnvironment().workspace_mb) << 20;
  thread_local ImperativeStates states;
  std::string state_key;  // empty: the op's calls share no state (yet)
  if (states.Shares(op)) state_key = states.Key(*n, in_shapes, in_types, dev, is_train);
  std::unique_ptr<OpState> state = state_key.empty() ? nullptr : states.Take(state_key);
  ctx.state = &state;
  StoragePtr temp;
  if (const auto* ft = op->attr<FTempSpace>("FTempSpace")) {
    const size_t bytes = (*ft)(n->attrs, in_shapes, in_types);
    if (bytes > 0) {
      temp = AllocStorage(bytes, dev);
      ctx.temp = temp->ptr();
      ctx.temp_bytes = bytes;
    }
  }
  const FCompute* fn = op->attr<FCompute>(FComputeKey(dev));
  SYMNET_CHECK(fn) << where() << " has no kernel for " << dev
                   << (dev.type == Device::kGPU ? " (docs/gpu.md lists the ops that run on a GPU)"
                                                : "");
  if (dev.type == Device::kGPU) cuda::SetDevice(dev.id);
  const bool trace = profiler::Recording(profiler::Category::kImperative);
  const int64_t start_us = trace ? profiler::NowMicros() : 0;
  try {
    (*fn)(n->attrs, ctx, in_blobs, req, out_blobs);
  } catch (const Error& e) {
    SYMNET_THROW << where() << ": " << e.what();
  }
  if (trace) {
    if (dev.type == Device::kGPU) cuda::Synchronize(dev.id);  // the kernel, not its launch
    profiler::RecordSpan(profiler::Category::kImperative, op->name, dev.ToString(), std::string(),
                         start_us, profiler::NowMicros());
  }
  if (state && state_key.empty() && states.NoteMade(op) && states.Shares(op))
    state_key = states.Key(*n, in_shapes, in_types, dev, is_train);  // its first state
  if (state && !state_key.empty()) states.Put(state_key, std::move(state));
  return outputs;
}

namespace {

/*!
 * \brief MXNet 1.x's refusals of in-place writes while recording: an output already in the graph
 *  (whatever the inputs), and, where the op has a tracked input (so it is recorded), an output
 *  written over one of its inputs (x[idx] = y, x += y: the input becomes a variable of the graph,
 *  which the write would change under it). An array whose graph a backward freed is no
 *  longer in a graph.
 */
void CheckRecordedOutputs(const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs) {
  for (const auto& o : outputs)
    SYMNET_CHECK(o.is_none() || !autograd::IsTracked(o))
        << "Assigning to NDArrays that are already in a computational graph will cause undefined "
           "behavior when evaluating gradients. Please call backward first to clear the graph or "
           "do this out side of a record section. Also note that you cannot use inplace "
           "operations like +=, *=, relu(x, out=x), y[idx]=x, etc inside a record section.";
  bool tracked = false;
  for (const auto& a : inputs) tracked = tracked || autograd::IsTracked(a);
  if (!tracked) return;
  for (const auto& o : outputs) {
    if (o.is_none() || o.read_ptr() == nullptr) continue;
    for (const auto& a : inputs)
      SYMNET_CHECK(a.is_none() || a.read_ptr() != o.read_ptr())
          << "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with "
             "autograd.";
  }
}

}  // namespace

std::vector<NDArray> Invoke(const std::string& op_name,
                            const std::map<std::string, std::string>& params,
                            const std::vector<NDArray>& inputs, std::vector<NDArray> outputs) {
  const Op* op = Op::Get(op_name);
  NodePtr n;
  if (!op->key_var_num_args.empty() && !params.count(op->key_var_num_args)) {
    std::map<std::string, std::string> dict = params;
    dict[op->key_var_num_args] = std::to_string(inputs.size());
    n = CreateOpNode(op, op->name, dict, {});
  } else {
    n = CreateOpNode(op, op->name, params, {});  // (no copy of the dict but the node's own)
  }
  // under amp.init the op runs on its inputs cast as the AMP rewrite would cast them
  std::vector<NDArray> cast;
  if (amp::ImperativeEnabled()) cast = AmpCastInputs(n->attrs, inputs);
  const std::vector<NDArray>& in = cast.empty() ? inputs : cast;
  if (autograd::IsRecording()) CheckRecordedOutputs(inputs, outputs);
  outputs = InvokeNode(n, in, std::move(outputs), autograd::IsTraining());
  if (autograd::IsRecording()) autograd::Record(n, in, &outputs);
  outputs.resize(NumVisibleOutputs(*n));
  return outputs;
}

}  // namespace symnet
