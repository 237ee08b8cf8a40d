/*! \brief AMP bindings: the precision lists and the ReducePrecision rewrite. */
#include "bindings.h"
#include "symnet/amp.h"

namespace symnet {
namespace python {

void InitAmp(py::module_& m) {
  m.def("amp_lists", [](const std::string& target) {
    std::map<std::string, std::string> out;
    for (const auto& kv : amp::Lists(DTypeFromName(target)))
      out[kv.first] = amp::CategoryName(kv.second);
    return out;
  });
  m.def("amp_conditional", [](const std::string& target) {
    py::list out;
    for (const auto& r : amp::ConditionalLists(DTypeFromName(target)))
      out.append(py::make_tuple(r.op, r.attr, r.values));
    return out;
  });
  m.def(
      "amp_convert",
      [](const Symbol& sym, const std::string& target, const std::vector<std::string>& target_ops,
         const std::vector<std::string>& fp32_ops,
         const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>& cond,
         const std::vector<std::string>& excluded, const std::vector<std::string>& data_names,
         bool cast_optional_params, bool replace_lists) {
        amp::AmpOptions o;
        o.replace_lists = replace_lists;
        o.target = DTypeFromName(target);
        o.target_dtype_ops = target_ops;
        o.fp32_ops = fp32_ops;
        for (const auto& c : cond)
          o.conditional_fp32_ops.push_back({std::get<0>(c), std::get<1>(c), std::get<2>(c)});
        o.excluded_sym_names = excluded;
        o.data_names = data_names;
        o.cast_optional_params = cast_optional_params;
        std::vector<std::string> low;
        Symbol out = amp::ReducePrecision(sym, o, &low);
        return py::make_tuple(out, low);
      },
      py::arg("sym"), py::arg("target"), py::arg("target_ops"), py::arg("fp32_ops"),
      py::arg("cond"), py::arg("excluded"), py::arg("data_names"), py::arg("cast_optional_params"),
      py::arg("replace_lists") = false);
  m.def("amp_remove_casts", &amp::RemoveAmpCast);
  // imperative AMP (amp.init/shutdown): an empty target turns it off
  m.def(
      "amp_set_imperative",
      [](const std::string& target, const std::vector<std::string>& target_ops,
         const std::vector<std::string>& fp32_ops,
         const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>& cond) {
        if (target.empty()) {
          amp::SetImperativeOptions(nullptr);
          return;
        }
        auto o = std::make_shared<amp::AmpOptions>();
        o->target = DTypeFromName(target);
        o->target_dtype_ops = target_ops;
        o->fp32_ops = fp32_ops;
        for (const auto& c : cond)
          o->conditional_fp32_ops.push_back({std::get<0>(c), std::get<1>(c), std::get<2>(c)});
        amp::SetImperativeOptions(std::move(o));
      });
  m.def("amp_imperative_target", []() {
    const auto o = amp::ImperativeOptions();
    return o ? std::string(DTypeName(o->target)) : std::string();
  });
}

}  // namespace python
}  // namespace symnet
