/*! \brief Training bindings: the loss scaler and the optimizer-state codec that the Python
 *  Module, Trainer and amp.LossScaler call (the C++ Trainer uses the same code). */
#include "bindings.h"
#include "symnet/train.h"

namespace symnet {
namespace python {

namespace {

py::dict StatesToPy(const train::OptimizerStates& st) {
  py::dict counts, states;
  for (const auto& kv : st.index_update_count) counts[py::int_(kv.first)] = kv.second;
  for (const auto& kv : st.states) {
    py::list parts;
    for (const auto& a : kv.second.parts) parts.append(a.is_none() ? py::none() : py::cast(a));
    states[py::int_(kv.first)] = py::make_tuple(parts, kv.second.is_tuple);
  }
  py::dict out;
  out["num_update"] = st.num_update;
  out["index_update_count"] = counts;
  out["states"] = states;
  out["loss_scaler"] = st.has_loss_scaler ? py::cast(st.loss_scaler) : py::none();
  return out;
}

}  // namespace

void InitTrain(py::module_& m) {
  using train::LossScaler;
  py::class_<LossScaler>(m, "LossScaler")
      .def(py::init([](double scale, double factor, int64_t window, double min_scale,
                       double max_scale, bool dynamic) {
             LossScaler s;
             s.scale = scale;
             s.factor = factor;
             s.window = window;
             s.min_scale = min_scale;
             s.max_scale = max_scale;
             s.dynamic = dynamic;
             s.Validate();
             return s;
           }),
           py::arg("scale"), py::arg("factor"), py::arg("window"), py::arg("min_scale"),
           py::arg("max_scale"), py::arg("dynamic"))
      .def_readonly("scale", &LossScaler::scale)
      .def_readonly("factor", &LossScaler::factor)
      .def_readonly("window", &LossScaler::window)
      .def_readonly("min_scale", &LossScaler::min_scale)
      .def_readonly("max_scale", &LossScaler::max_scale)
      .def_readonly("dynamic", &LossScaler::dynamic)
      .def_readonly("clean_steps", &LossScaler::clean_steps)
      .def_readonly("num_overflows", &LossScaler::num_overflows)
      .def("update", &LossScaler::Update, py::arg("overflow"))
      .def_static("has_overflow",
                  [](const std::vector<NDArray>& grads) {
                    py::gil_scoped_release release;
                    return LossScaler::HasOverflow(grads);
                  })
      .def("check_step",
           [](LossScaler& s, const std::vector<NDArray>& grads) {
             py::gil_scoped_release release;
             return s.CheckStep(grads);
           })
      .def("to_json", &LossScaler::ToJson)
      .def("from_json", &LossScaler::FromJson);

  m.def(
      "save_optimizer_states",
      [](const std::string& path, int64_t num_update, const std::map<int64_t, int64_t>& counts,
         const py::dict& states, const py::object& scaler) {
        train::OptimizerStates st;
        st.num_update = num_update;
        st.index_update_count = counts;
        for (const auto& kv : states) {
          const auto entry = kv.second.cast<py::tuple>();
          auto& e = st.states[kv.first.cast<int64_t>()];
          for (const auto& part : entry[0].cast<py::list>())
            e.parts.push_back(part.is_none() ? NDArray() : part.cast<NDArray>());
          e.is_tuple = entry[1].cast<bool>();
        }
        if (!scaler.is_none()) {
          st.has_loss_scaler = true;
          st.loss_scaler = scaler.cast<LossScaler>();
        }
        train::SaveOptimizerStates(path, st);
      },
      py::arg("path"), py::arg("num_update"), py::arg("index_update_count"), py::arg("states"),
      py::arg("loss_scaler"));
  m.def("load_optimizer_states",
        [](const std::string& path) { return StatesToPy(train::LoadOptimizerStates(path)); });
  m.def("latest_checkpoint", &train::LatestCheckpoint, py::arg("prefix"), py::arg("need_states"));
}

}  // namespace python
}  // namespace symnet
