/*! \brief Symbol bindings: composition, listing, inference and JSON. */
#include "bindings.h"

namespace symnet {
namespace python {

namespace {

py::list ShapesToPy(const std::vector<Shape>& v) {
  py::list l;
  for (const auto& s : v) l.append(ShapeToPy(s));
  return l;
}

py::list TypesToPy(const std::vector<DType>& v) {
  py::list l;
  for (DType t : v) {
    if (t == DType::kUnknown) {
      l.append(py::none());
    } else {
      l.append(std::string(DTypeName(t)));
    }
  }
  return l;
}

}  // namespace

void InitSymbol(py::module_& m) {
  py::class_<Symbol>(m, "Symbol")
      .def_static("variable",
                  [](const std::string& name, const std::map<std::string, std::string>& attrs) {
                    return Symbol::Variable(name, attrs);
                  })
      .def_static("create", &Symbol::Create, py::arg("op"), py::arg("name"), py::arg("params"),
                  py::arg("args"), py::arg("kwargs"))
      .def_static("group", &Symbol::Group)
      .def_static("from_json", &Symbol::FromJSON)
      .def_static("load", &Symbol::Load)
      .def("tojson", &Symbol::ToJSON)
      .def("save", &Symbol::Save)
      .def("list_arguments", &Symbol::ListArguments)
      .def("list_outputs", &Symbol::ListOutputs)
      .def("list_auxiliary_states", &Symbol::ListAuxiliaryStates)
      .def("list_inputs", &Symbol::ListInputs)
      .def("get_internals", &Symbol::GetInternals)
      .def("get_children", &Symbol::GetChildren)
      .def("num_outputs", &Symbol::NumOutputs)
      .def("output", [](const Symbol& s, size_t i) { return s[i]; })
      .def("output_by_name", [](const Symbol& s, const std::string& n) { return s[n]; })
      .def("name", &Symbol::name)
      .def(
          "is_variable",
          [](const Symbol& s) { return s.outputs.size() == 1 && s.outputs[0].node->is_variable(); })
      .def("op_name",
           [](const Symbol& s) -> std::string {
             if (s.outputs.size() != 1 || s.outputs[0].node->is_variable()) return "null";
             return s.outputs[0].node->op()->name;
           })
      .def("attr", &Symbol::Attr)
      .def("set_attr", &Symbol::SetAttr)
      .def("attr_dict", &Symbol::AttrDict)
      .def("copy", &Symbol::Copy)
      .def("same_as", [](const Symbol& a, const Symbol& b) { return a.outputs == b.outputs; })
      .def("infer_shape",
           [](const Symbol& s, const std::map<std::string, py::object>& known, bool partial) {
             std::map<std::string, Shape> k;
             for (const auto& kv : known) k[kv.first] = ShapeFromPy(kv.second);
             std::vector<Shape> a, o, x;
             const bool complete = s.InferShape(k, &a, &o, &x, partial);
             return py::make_tuple(ShapesToPy(a), ShapesToPy(o), ShapesToPy(x), complete);
           })
      .def("infer_type",
           [](const Symbol& s, const std::map<std::string, std::string>& known, bool partial) {
             std::map<std::string, DType> k;
             for (const auto& kv : known) k[kv.first] = DTypeFromName(kv.second);
             std::vector<DType> a, o, x;
             const bool complete = s.InferType(k, &a, &o, &x, partial);
             return py::make_tuple(TypesToPy(a), TypesToPy(o), TypesToPy(x), complete);
           });
}

}  // namespace python
}  // namespace symnet
