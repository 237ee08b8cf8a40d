/*! \brief Bindings of symnet::dist (collectives.h) for mx.kvstore's distributed stores. */
#include "bindings.h"
#include "symnet/collectives.h"
#include "symnet/executor.h"

namespace symnet {
namespace python {

void InitDist(py::module_& m) {
  py::module_ d = m.def_submodule("dist", "processes of a distributed job (MPI)");
  const auto release = py::call_guard<py::gil_scoped_release>();
  d.def("available", &dist::Available);
  d.def("init", &dist::Init, release);
  d.def("initialized", &dist::Initialized);
  d.def("rank", &dist::Rank);
  d.def("size", &dist::Size);
  d.def("local_rank", &dist::LocalRank);
  d.def("local_size", &dist::LocalSize);
  d.def("allreduce_sum", static_cast<void (*)(const std::vector<NDArray>&)>(&dist::AllReduceSum),
        release);
  d.def("broadcast", &dist::Broadcast, py::arg("arrays"), py::arg("root") = 0, release);
  d.def("allgather", &dist::AllGather, release);
  d.def("barrier", &dist::Barrier, release);
  d.def("any", &dist::Any, release);
  d.def("finalize", &dist::Finalize, release);
  d.def("abort_process", &dist::AbortProcess);

  py::class_<dist::GradientReducer>(d, "GradientReducer")
      .def(py::init<std::vector<NDArray>, const std::vector<size_t>&, size_t>(), py::arg("grads"),
           py::arg("ready_order"), py::arg("bucket_bytes") = size_t{25} << 20)
      .def("mark_ready", &dist::GradientReducer::MarkReady, release)
      .def("wait", &dist::GradientReducer::Wait, release)
      .def_property_readonly("num_buckets", &dist::GradientReducer::num_buckets)
      .def("bucket", &dist::GradientReducer::bucket)
      .def("events", &dist::GradientReducer::events)
      // the executor calls the reducer from its backward loop directly (no Python, no GIL);
      // the executor holds it through the callback, so keep the reducer alive while attached
      .def(
          "attach",
          [](dist::GradientReducer& r, Executor& exe, const std::vector<size_t>& arg_to_grad) {
            exe.SetGradientReadyCallback([&r, arg_to_grad](size_t arg) {
              if (arg < arg_to_grad.size() && arg_to_grad[arg] != static_cast<size_t>(-1))
                r.MarkReady(arg_to_grad[arg]);
            });
          },
          py::keep_alive<2, 1>());
  m.def("executor_gradient_ready_order",
        [](const Executor& exe) { return exe.GradientReadyOrder(); });
  m.def("executor_detach_gradient_callback",
        [](Executor& exe) { exe.SetGradientReadyCallback(nullptr); });
}

}  // namespace python
}  // namespace symnet
