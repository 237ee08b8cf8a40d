/*! \brief Executor bindings: bind, simple_bind, forward, backward, memory report. */
#include "bindings.h"

namespace symnet {
namespace python {

namespace {

/*! \brief BindOptions from a dict: the environment's defaults, overridden key by key. */
BindOptions OptionsFromPy(const py::object& obj) {
  BindOptions o = BindOptions::FromEnvironment();
  if (obj.is_none()) return o;
  for (const auto& kv : obj.cast<py::dict>()) {
    const std::string key = kv.first.cast<std::string>();
    const py::handle v = kv.second;
    if (key == "layout") {
      o.layout = v.is_none() ? "off" : py::str(v).cast<std::string>();
    } else if (key == "cuda_graphs") {
      o.cuda_graphs = v.cast<bool>();
    } else if (key == "workspace_mb") {
      const int64_t mb = v.cast<int64_t>();
      SYMNET_CHECK(mb >= 0) << "bind option workspace_mb=" << mb
                            << ": expected a size in MiB, >= 0";
      o.workspace_mb = static_cast<uint64_t>(mb);
    } else if (key == "fuse") {
      o.fuse = v.cast<bool>();
    } else {
      SYMNET_THROW << "unknown bind option '" << key
                   << "'; expected layout, cuda_graphs, workspace_mb or fuse";
    }
  }
  o.Validate();
  return o;
}

py::dict OptionsToPy(const BindOptions& o) {
  py::dict d;
  d["layout"] = o.layout;
  d["cuda_graphs"] = o.cuda_graphs;
  d["workspace_mb"] = o.workspace_mb;
  d["fuse"] = o.fuse;
  return d;
}

}  // namespace

void InitExecutor(py::module_& m) {
  m.def(
      "default_bind_options", [] { return OptionsToPy(BindOptions::FromEnvironment()); },
      "The bind options used where none are given (from SYMNET_LAYOUT, SYMNET_CUDA_GRAPHS, "
      "SYMNET_CUDNN_WORKSPACE_MB).");
  py::class_<Executor, std::unique_ptr<Executor>>(m, "Executor")
      .def_static(
          "bind",
          [](const Symbol& s, const py::object& dev, const std::vector<NDArray>& args,
             const std::vector<NDArray>& grads, const std::vector<std::string>& reqs,
             const std::vector<NDArray>& aux, const py::object& options, const Executor* shared) {
            std::vector<GradReq> r;
            for (const auto& x : reqs) r.push_back(GradReqFromString(x));
            return Executor::Bind(s, DeviceFromPy(dev), args, grads, r, aux, OptionsFromPy(options),
                                  shared);
          },
          py::arg("symbol"), py::arg("dev"), py::arg("args"), py::arg("grads"), py::arg("reqs"),
          py::arg("aux"), py::arg("options") = py::none(), py::arg("shared") = nullptr)
      .def_static(
          "simple_bind",
          [](const Symbol& s, const py::object& dev,
             const std::map<std::string, py::object>& shapes,
             const std::map<std::string, std::string>& dtypes,
             const std::map<std::string, std::string>& reqs, const std::string& def_req,
             const py::object& options) {
            std::map<std::string, Shape> sh;
            for (const auto& kv : shapes) sh[kv.first] = ShapeFromPy(kv.second);
            std::map<std::string, DType> ty;
            for (const auto& kv : dtypes) ty[kv.first] = DTypeFromName(kv.second);
            std::map<std::string, GradReq> rq;
            for (const auto& kv : reqs) rq[kv.first] = GradReqFromString(kv.second);
            return Executor::SimpleBind(s, DeviceFromPy(dev), sh, ty, rq,
                                        GradReqFromString(def_req), OptionsFromPy(options));
          },
          py::arg("symbol"), py::arg("dev"), py::arg("shapes"), py::arg("dtypes"), py::arg("reqs"),
          py::arg("default_req"), py::arg("options") = py::none())
      .def("forward",
           [](Executor& e, bool is_train) {
             py::gil_scoped_release release;
             e.Forward(is_train);
           })
      .def("backward",
           [](Executor& e, const std::vector<NDArray>& head_grads) {
             py::gil_scoped_release release;
             e.Backward(head_grads);
           })
      .def_property_readonly("outputs", &Executor::outputs)
      .def_property_readonly("arg_arrays", &Executor::arg_arrays)
      .def_property_readonly("grad_arrays", &Executor::grad_arrays)
      .def_property_readonly("aux_arrays", &Executor::aux_arrays)
      .def_property_readonly(
          "grad_reqs",
          [](const Executor& e) {
            std::vector<std::string> r;
            for (GradReq q : e.grad_reqs())
              r.push_back(q == GradReq::kNull ? "null" : (q == GradReq::kAdd ? "add" : "write"));
            return r;
          })
      .def("memory_report",
           [](const Executor& e) {
             const MemoryReport& r = e.memory_report();
             py::dict d;
             d["arena_bytes"] = r.arena_bytes;
             d["no_sharing_bytes"] = r.no_sharing_bytes;
             d["lower_bound_bytes"] = r.lower_bound_bytes;
             d["num_inplace"] = r.num_inplace;
             d["external_bytes"] = r.external_bytes;
             d["num_entries"] = r.num_entries;
             return d;
           })
      .def_property_readonly("options", [](const Executor& e) { return OptionsToPy(e.options()); })
      .def("optimized_symbol", &Executor::optimized_symbol)
      .def("debug_str", &Executor::DebugString)
      .def("set_loss_scale", &Executor::SetLossScale)
      .def_property_readonly("loss_scale", &Executor::loss_scale)
      .def(
          "set_monitor_callback",
          [](Executor& e, py::object callback, bool monitor_all) {
            if (callback.is_none()) {
              e.SetMonitorCallback(nullptr);
              return;
            }
            // forward/backward run without the GIL: take it for each call into Python
            e.SetMonitorCallback(
                [callback](const std::string& name, const NDArray& value) {
                  py::gil_scoped_acquire gil;
                  callback(name, value);
                },
                monitor_all);
          },
          py::arg("callback"), py::arg("monitor_all") = false)
      .def("set_profiling", &Executor::SetProfiling)
      .def("op_profile", &Executor::OpProfile);
}

}  // namespace python
}  // namespace symnet
