/*! \brief Imperative autograd: the tape as graph nodes, backward through the Gradient pass. */
#include "symnet/autograd.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "symnet/imperative.h"
#include "symnet/op_attr_types.h"
#include "symnet/pass.h"
#include "symnet/symbol.h"

namespace symnet {
namespace autograd {

namespace {

// MXNet's flags are per thread too: a data-loading thread never records
thread_local bool recording = false;
thread_local bool training = false;

/*! \brief A variable node holding `value` (an untracked input, a head gradient). */
NodePtr ValueNode(const NDArray& value, const char* name) {
  NodePtr v = Node::Variable(name);
  v->ag = std::make_shared<AutogradRecord>();
  v->ag->outputs.push_back(value.Detach());
  return v;
}

const char kNotRecorded[] =
    "was not computed under autograd.record() from an array marked with attach_grad() (or its "
    "recorded values were freed by an earlier backward: pass retain_graph=True to "
    "differentiate the same graph twice)";

/*! \brief Turns recording off for a scope (backward's own calls are never recorded). */
class PauseRecording {
 public:
  PauseRecording() : was_(SetRecording(false)) {}
  ~PauseRecording() { SetRecording(was_); }

 private:
  bool was_;
};

/*! \brief The recorded value of a forward graph entry. */
const NDArray& RecordedValue(const NodeEntry& e) { return e.node->ag->outputs.at(e.index); }

/*!
 * \brief Outputs for a backward op node: output i is the gradient of its forward node's input i
 *  and has that input's shape and dtype (how backward ops without shape rules get their shapes
 *  in graphs too, src/pass/infer_attr.cc). Empty for other nodes: their rules decide.
 */
std::vector<NDArray> BackwardOutputs(const Node& n) {
  std::vector<NDArray> outs;
  if (!n.op()->attr<TIsBackward>("TIsBackward") || n.control_deps.empty()) return outs;
  const Node& fwd = *n.control_deps[0];
  if (!fwd.ag || fwd.inputs.size() < n.num_outputs()) return outs;
  for (uint32_t i = 0; i < n.num_outputs(); ++i) {
    const NDArray& v = RecordedValue(fwd.inputs[i]);
    outs.emplace_back(v.shape(), v.device(), v.dtype());
  }
  return outs;
}

/*! \brief Runs a recorded function's backward closure; a none gradient becomes zeros. */
std::vector<NDArray> CallFunctionBackward(const Node& n, const std::vector<NDArray>& ograds) {
  const Node& fwd = *n.control_deps.at(0);
  SYMNET_CHECK(fwd.ag && fwd.ag->backward) << "backward: a recorded function " << kNotRecorded;
  std::vector<NDArray> grads = fwd.ag->backward(ograds);
  SYMNET_CHECK_EQ(grads.size(), fwd.inputs.size())
      << "backward: a recorded function returned " << grads.size() << " gradients for "
      << fwd.inputs.size() << " inputs";
  for (size_t i = 0; i < grads.size(); ++i) {
    const NDArray& x = RecordedValue(fwd.inputs[i]);
    if (grads[i].is_none()) {
      grads[i] = NDArray::Zeros(x.shape(), x.device(), x.dtype());
    } else {
      SYMNET_CHECK(grads[i].shape() == x.shape())
          << "backward: a recorded function's gradient " << i << " has shape " << grads[i].shape()
          << " but its input " << x.shape();
    }
  }
  return grads;
}

/*! \brief Frees the values a backward read (`recorded`: every node of the heads' graph),
 *  keeping attach_grad's variables. */
void Release(const std::vector<NodePtr>& recorded) {
  for (const auto& n : recorded) {
    if (!n->ag || n->ag->marked) continue;
    n->ag->outputs.clear();
    n->ag->backward = nullptr;
    n->ag->released = true;
  }
}

}  // namespace

bool IsRecording() { return recording; }
bool SetRecording(bool on) {
  const bool old = recording;
  recording = on;
  return old;
}
bool IsTraining() { return training; }
bool SetTraining(bool on) {
  const bool old = training;
  training = on;
  return old;
}

void MarkVariable(NDArray* var, const NDArray& grad, OpReqType req) {
  SYMNET_CHECK(!var->is_none()) << "attach_grad: the array is empty";
  SYMNET_CHECK(req == kNullOp || (!grad.is_none() && grad.shape() == var->shape()))
      << "attach_grad: the gradient buffer has shape " << grad.shape() << " but the array "
      << var->shape();
  NodePtr v = ValueNode(*var, "var");
  v->ag->marked = true;
  v->ag->grad = grad;
  v->ag->grad_req = req;
  var->set_autograd_entry(v, 0);
}

NDArray GradOf(const NDArray& var) {
  const NodePtr& n = var.autograd_node();
  if (!n || !n->ag || !n->ag->marked) return NDArray();
  return n->ag->grad;
}

bool IsTracked(const NDArray& a) {
  const NodePtr& n = a.autograd_node();
  // an output whose graph a backward freed is a constant from then on, as in MXNet
  return n && !(n->ag && n->ag->released);
}

void Record(const NodePtr& n, const std::vector<NDArray>& inputs, std::vector<NDArray>* outputs) {
  bool tracked = false;
  for (const auto& a : inputs) tracked = tracked || IsTracked(a);
  if (!tracked) return;
  // an output written over a tracked input would change a value backward reads
  for (size_t o = 0; o < outputs->size(); ++o)
    for (size_t i = 0; i < inputs.size(); ++i)
      SYMNET_CHECK(!IsTracked(inputs[i]) || (*outputs)[o].dptr() != inputs[i].dptr())
          << "autograd: operator " << n->op()->name << " writes output " << o << " over input " << i
          << ", which autograd.record() tracks; an in-place update of "
          << "a recorded array cannot be differentiated (write to a new array instead)";
  n->inputs.clear();
  for (const auto& a : inputs) {
    if (IsTracked(a)) {
      n->inputs.push_back(NodeEntry{a.autograd_node(), a.autograd_index(), 0});
    } else {
      n->inputs.push_back(NodeEntry{ValueNode(a, "const"), 0, 0});
    }
  }
  n->ag = std::make_shared<AutogradRecord>();
  for (uint32_t i = 0; i < outputs->size(); ++i) {
    n->ag->outputs.push_back((*outputs)[i].Detach());
    (*outputs)[i].set_autograd_entry(n, i);
  }
}

void RecordFunction(const std::vector<NDArray>& inputs, std::vector<NDArray>* outputs,
                    std::function<std::vector<NDArray>(const std::vector<NDArray>&)> backward) {
  if (!IsRecording()) return;
  NodePtr n = CreateOpNode(Op::Get("_autograd_function"), "function",
                           {{"num_inputs", std::to_string(inputs.size())},
                            {"num_outputs", std::to_string(outputs->size())}},
                           {});
  Record(n, inputs, outputs);
  if (n->ag) n->ag->backward = std::move(backward);
}

std::vector<NDArray> Backward(const std::vector<NDArray>& heads,
                              const std::vector<NDArray>& head_grads,
                              const std::vector<NDArray>& variables, bool retain_graph,
                              bool is_train, bool create_graph) {
  SYMNET_CHECK(!heads.empty()) << "backward: no heads given";
  SYMNET_CHECK(head_grads.empty() || head_grads.size() == heads.size())
      << "backward: " << heads.size() << " heads but " << head_grads.size() << " head gradients";
  std::vector<NodeEntry> ys, ys_grads;
  for (size_t i = 0; i < heads.size(); ++i) {
    const NDArray& h = heads[i];
    const NodePtr& node = h.autograd_node();
    SYMNET_CHECK(node && node->ag && !node->ag->released)
        << "backward: head " << i << " (shape " << h.shape() << ") " << kNotRecorded;
    ys.push_back(NodeEntry{node, h.autograd_index(), 0});
    NDArray g = head_grads.empty() ? NDArray() : head_grads[i];
    if (g.is_none()) {
      g = NDArray::Ones(h.shape(), h.device(), h.dtype());
    } else {
      SYMNET_CHECK(g.shape() == h.shape())
          << "backward: head gradient " << i << " has shape " << g.shape() << " but head " << i
          << " has " << h.shape();
    }
    ys_grads.push_back(NodeEntry{ValueNode(g, "head_grad"), 0, 0});
  }
  // the recorded graph, in one walk: its marked variables and, after, what to release
  std::vector<NodePtr> recorded;
  DFSVisit(ys, [&](const NodePtr& n) { recorded.push_back(n); });
  std::vector<NodePtr> xs;
  if (variables.empty()) {
    for (const auto& n : recorded)
      if (n->ag && n->ag->marked && n->ag->grad_req != kNullOp) xs.push_back(n);
    SYMNET_CHECK(!xs.empty()) << "backward: the heads depend on no array with attach_grad() "
                                 "(call attach_grad() on the parameters before recording)";
  } else {
    for (size_t i = 0; i < variables.size(); ++i) {
      const NodePtr& n = variables[i].autograd_node();
      SYMNET_CHECK(n && n->ag && n->ag->marked)
          << "grad: variable " << i << " is not marked; call attach_grad() on it before "
          << "recording";
      xs.push_back(n);
    }
  }
  PauseRecording pause;
  const std::vector<NodeEntry> grads = Gradient(ys, xs, ys_grads);

  // every node the gradient reads: recorded ones have their values, new ones run in order
  std::vector<NodePtr> order;
  DFSVisit(grads, [&](const NodePtr& n) { order.push_back(n); });
  // how many readers each new node's outputs have left, to free gradients as soon as possible
  std::unordered_map<const Node*, int> readers;
  for (const auto& n : order)
    if (!n->ag)
      for (const auto& e : n->inputs) ++readers[e.node.get()];
  for (const auto& g : grads) ++readers[g.node.get()];
  std::unordered_map<const Node*, std::vector<NDArray>> values;
  const Op* function_backward = Op::Get("_backward_autograd_function");
  for (const auto& n : order) {
    if (n->ag) {
      SYMNET_CHECK(!n->ag->released)
          << "backward: operator " << (n->is_variable() ? "input" : n->op()->name) << " "
          << kNotRecorded;
      continue;
    }
    SYMNET_CHECK(!n->is_variable()) << "internal error: gradient variable without a value";
    std::vector<NDArray> in;
    for (const auto& e : n->inputs) {
      if (e.node->ag) {
        NDArray v = RecordedValue(e);
        // create_graph: the gradient ops are recorded on what they read, so the gradients
        // they give can be differentiated again (higher-order gradients)
        if (create_graph) v.set_autograd_entry(e.node, e.index);
        in.push_back(v);
      } else {
        in.push_back(values.at(e.node.get()).at(e.index));
      }
    }
    std::vector<NDArray>& out = values[n.get()];
    out = n->op() == function_backward ? CallFunctionBackward(*n, in)
                                       : InvokeNode(n, in, BackwardOutputs(*n), is_train);
    // (a recorded node reads its inputs from its own record from now on, as forward nodes do)
    if (create_graph) Record(n, in, &out);
    for (const auto& e : n->inputs)
      if (!e.node->ag && --readers[e.node.get()] == 0) values.erase(e.node.get());
  }

  std::vector<NDArray> out;
  for (size_t i = 0; i < xs.size(); ++i) {
    const NodeEntry& g = grads[i];
    const NDArray& value = g.node->ag ? RecordedValue(g) : values.at(g.node.get()).at(g.index);
    if (!variables.empty()) {
      out.push_back(value);
      if (create_graph && g.node->ag) out.back().set_autograd_entry(g.node, g.index);
      continue;
    }
    AutogradRecord& rec = *xs[i]->ag;
    rec.fresh = true;
    if (rec.grad_req == kAddTo) {
      Invoke("elemwise_add", {}, {rec.grad, value}, {rec.grad});
    } else if (rec.grad.dptr() != value.dptr()) {
      rec.grad.CopyFrom(value);
    }
  }
  if (!retain_graph) Release(recorded);
  return out;
}

Symbol GetSymbol(const std::vector<NDArray>& heads) {
  std::vector<NodeEntry> ys;
  for (size_t i = 0; i < heads.size(); ++i) {
    const NodePtr& node = heads[i].autograd_node();
    SYMNET_CHECK(node && node->ag) << "get_symbol: output " << i << " " << kNotRecorded;
    ys.push_back(NodeEntry{node, heads[i].autograd_index(), 0});
  }
  // a copy of the recorded graph without its values: attach_grad's variables become var0,
  // var1, ... and untracked inputs null0, null1, ... (MXNet's names for them)
  std::unordered_map<const Node*, NodePtr> copies;
  int marked = 0, constant = 0;
  DFSVisit(ys, [&](const NodePtr& n) {
    NodePtr c;
    if (n->is_variable()) {
      c = Node::Variable(n->ag && n->ag->marked ? "var" + std::to_string(marked++)
                                                : "null" + std::to_string(constant++));
    } else {
      c = Node::Create();
      c->attrs = n->attrs;
      for (const auto& e : n->inputs)
        c->inputs.push_back(NodeEntry{copies.at(e.node.get()), e.index, 0});
    }
    copies[n.get()] = c;
  });
  std::vector<NodeEntry> outs;
  for (const auto& y : ys) outs.push_back(NodeEntry{copies.at(y.node.get()), y.index, 0});
  return Symbol(outs);
}

}  // namespace autograd
}  // namespace symnet
