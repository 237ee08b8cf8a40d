/*! \brief Executor bindings: bind, simple_bind, forward, backward, memory report. */
#include "bindings.h"

namespace symnet {
namespace python {

void InitExecutor(py::module_& m) {
  py::class_<Executor, std::unique_ptr<Executor>>(m, "Executor")
      .def_static("bind",
                  [](const Symbol& s, const py::object& dev, const std::vector<NDArray>& args,
                     const std::vector<NDArray>& grads, const std::vector<std::string>& reqs,
                     const std::vector<NDArray>& aux) {
                    std::vector<GradReq> r;
                    for (const auto& x : reqs) r.push_back(GradReqFromString(x));
                    return Executor::Bind(s, DeviceFromPy(dev), args, grads, r, aux);
                  })
      .def_static("simple_bind",
                  [](const Symbol& s, const py::object& dev,
                     const std::map<std::string, py::object>& shapes,
                     const std::map<std::string, std::string>& dtypes,
                     const std::map<std::string, std::string>& reqs, const std::string& def_req) {
                    std::map<std::string, Shape> sh;
                    for (const auto& kv : shapes) sh[kv.first] = ShapeFromPy(kv.second);
                    std::map<std::string, DType> ty;
                    for (const auto& kv : dtypes) ty[kv.first] = DTypeFromName(kv.second);
                    std::map<std::string, GradReq> rq;
                    for (const auto& kv : reqs) rq[kv.first] = GradReqFromString(kv.second);
                    return Executor::SimpleBind(s, DeviceFromPy(dev), sh, ty, rq,
                                                GradReqFromString(def_req));
                  })
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
      .def_property_readonly("grad_reqs", [](const Executor& e) {
        std::vector<std::string> r;
        for (GradReq q : e.grad_reqs())
          r.push_back(q == GradReq::kNull ? "null" : (q == GradReq::kAdd ? "add" : "write"));
        return r;
      })
      .def("memory_report", [](const Executor& e) {
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
      .def_static("set_channels_last_layouts", &Executor::SetChannelsLastLayouts)
      .def("debug_str", &Executor::DebugString)
      .def("set_loss_scale", &Executor::SetLossScale)
      .def_property_readonly("loss_scale", &Executor::loss_scale)
      .def("set_profiling", &Executor::SetProfiling)
      .def("op_profile", &Executor::OpProfile);
}

}  // namespace python
}  // namespace symnet
