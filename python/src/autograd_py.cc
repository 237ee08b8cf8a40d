/*! \brief mx.autograd's core: recording and training flags, attach_grad, backward. */
#include "bindings.h"

namespace symnet {
namespace python {

namespace {

OpReqType ReqFromName(const std::string& req) {
  if (req == "write") return kWriteTo;
  if (req == "add") return kAddTo;
  if (req == "null") return kNullOp;
  SYMNET_THROW << "grad_req '" << req << "' is not one of 'write', 'add', 'null'";
}

std::string ReqName(OpReqType req) {
  return req == kAddTo ? "add" : req == kNullOp ? "null" : "write";
}

}  // namespace

void InitAutograd(py::module_& m) {
  m.def("autograd_set_recording", &autograd::SetRecording);
  m.def("autograd_is_recording", &autograd::IsRecording);
  m.def("autograd_set_training", &autograd::SetTraining);
  m.def("autograd_is_training", &autograd::IsTraining);
  // grad is the buffer backward writes (MXNet's attach_grad allocates zeros; Python does that)
  m.def("autograd_mark_variable", [](NDArray& var, const NDArray& grad, const std::string& req) {
    autograd::MarkVariable(&var, grad, ReqFromName(req));
  });
  m.def("autograd_grad_of", &autograd::GradOf);
  m.def("autograd_grad_req", [](const NDArray& var) -> py::object {
    const NodePtr& n = var.autograd_node();
    if (!n || !n->ag || !n->ag->marked) return py::none();
    return py::str(ReqName(n->ag->grad_req));
  });
  // whether a backward wrote the gradient since the last call (Gluon's stale-gradient check)
  m.def("autograd_take_fresh", [](const NDArray& var) {
    const NodePtr& n = var.autograd_node();
    if (!n || !n->ag || !n->ag->marked) return false;
    const bool fresh = n->ag->fresh;
    n->ag->fresh = false;
    return fresh;
  });
  m.def("autograd_is_tracked", &autograd::IsTracked);
  m.def("autograd_detach", &NDArray::Detach);
  // fn(output gradients) -> input gradients (None: zero), called from backward with the GIL
  m.def("autograd_record_function",
        [](const std::vector<NDArray>& inputs, std::vector<NDArray> outputs, py::function fn) {
          // the closure may be dropped where the GIL is not held (a backward freeing its graph)
          std::shared_ptr<py::function> held(new py::function(std::move(fn)), [](py::function* f) {
            py::gil_scoped_acquire gil;
            delete f;
          });
          autograd::RecordFunction(inputs, &outputs, [held](const std::vector<NDArray>& ograds) {
            py::gil_scoped_acquire gil;
            py::object res = (*held)(ograds);
            std::vector<NDArray> grads;
            for (const auto& g : res) grads.push_back(g.is_none() ? NDArray() : g.cast<NDArray>());
            return grads;
          });
          return outputs;
        });
  m.def("autograd_backward", &autograd::Backward, py::arg("heads"), py::arg("head_grads"),
        py::arg("variables"), py::arg("retain_graph"), py::arg("is_train"),
        py::arg("create_graph") = false, py::call_guard<py::gil_scoped_release>());
  m.def("autograd_get_symbol", &autograd::GetSymbol);
}

}  // namespace python
}  // namespace symnet
