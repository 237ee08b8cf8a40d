/*! \brief Profiler bindings (mx.profiler): configuration, state, records and their dumps. */
#include "bindings.h"
#include "operators/dnnl/dnnl_weight_stats.h"
#include "symnet/profiler.h"

namespace symnet {
namespace python {

namespace {

profiler::Category CategoryFromPy(const std::string& c) {
  if (c == "user") return profiler::Category::kUser;
  if (c == "imperative") return profiler::Category::kImperative;
  if (c == "api") return profiler::Category::kApi;
  SYMNET_THROW << "profiler: unknown record category '" << c
               << "'; expected user, imperative or api";
}

}  // namespace

void InitProfiler(py::module_& m) {
  m.def(
      "profiler_set_config",
      [](bool symbolic, bool imperative, bool api, bool memory, bool aggregate) {
        profiler::Config c;
        c.symbolic = symbolic;
        c.imperative = imperative;
        c.api = api;
        c.memory = memory;
        c.aggregate = aggregate;
        profiler::SetConfig(c);
      },
      py::arg("symbolic"), py::arg("imperative"), py::arg("api"), py::arg("memory"),
      py::arg("aggregate"));
  m.def("profiler_set_running", &profiler::SetRunning);
  m.def("profiler_is_running", &profiler::IsRunning);
  m.def("profiler_set_paused", &profiler::SetPaused);
  m.def("profiler_now_us", &profiler::NowMicros);
  m.def("profiler_trace_json", &profiler::ChromeTraceJSON, py::arg("clear"));
  m.def("profiler_aggregate", &profiler::AggregateTable, py::arg("json"), py::arg("sort_by"),
        py::arg("ascending"), py::arg("reset"));
  m.def("profiler_clear", &profiler::Clear);
  // a debug statistic: weight reorders into oneDNN formats run and skipped (kept copy current)
  m.def("weight_reorder_stats", [] {
    const auto c = dnnl_util::WeightReorderStats();
    py::dict d;
    d["reordered"] = c.reordered;
    d["reused"] = c.reused;
    return d;
  });
  m.def("set_weight_cache", &dnnl_util::SetWeightCacheEnabled);
  m.def(
      "profiler_record_span",
      [](const std::string& category, const std::string& name, const std::string& domain,
         int64_t start_us, int64_t end_us) {
        profiler::RecordSpan(CategoryFromPy(category), name, domain, std::string(), start_us,
                             end_us);
      },
      py::arg("category"), py::arg("name"), py::arg("domain"), py::arg("start_us"),
      py::arg("end_us"));
  m.def(
      "profiler_record_counter",
      [](const std::string& name, const std::string& domain, double value) {
        profiler::RecordCounter(profiler::Category::kUser, name, domain, value);
      },
      py::arg("name"), py::arg("domain"), py::arg("value"));
  m.def(
      "profiler_record_marker",
      [](const std::string& name, const std::string& domain, const std::string& scope) {
        profiler::RecordMarker(profiler::Category::kUser, name, domain, scope);
      },
      py::arg("name"), py::arg("domain"), py::arg("scope"));
}

}  // namespace python
}  // namespace symnet
