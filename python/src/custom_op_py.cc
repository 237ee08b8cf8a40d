/*!
 * \brief The Python side of Custom ops: a CustomOpProp (symnet/custom_op.h) that forwards every
 *  call to a bridge object made by symnet.operator, which wraps the user's CustomOpProp and
 *  CustomOp. Calls may come from threads that do not hold the GIL (executors release it).
 */
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "symnet/custom_op.h"

namespace symnet {
namespace python {

namespace {

/*! \brief The Python exception being handled, with its traceback, as one message. */
std::string DescribePythonError(py::error_already_set& e) {
  try {
    py::object fmt = py::module_::import("traceback").attr("format_exception");
    std::string text;
    for (const auto& line : fmt(e.type(), e.value(), e.trace())) text += py::str(line);
    return text;
  } catch (...) {
    return e.what();
  }
}

const char* ReqName(OpReqType r) {
  switch (r) {
    case kNullOp:
      return "null";
    case kWriteInplace:
      return "inplace";
    case kAddTo:
      return "add";
    default:
      return "write";
  }
}

py::list ReqsToPy(const std::vector<OpReqType>& req) {
  py::list l;
  for (OpReqType r : req) l.append(ReqName(r));
  return l;
}

class PyCustomOpProp : public CustomOpProp {
 public:
  PyCustomOpProp(std::string op_type, py::object bridge)
      : op_type_(std::move(op_type)), bridge_(std::move(bridge)) {}

  ~PyCustomOpProp() override {
    // after the interpreter is gone its objects can only be dropped, not released
#if PY_VERSION_HEX >= 0x030D0000
    const bool finalizing = Py_IsFinalizing();
#else
    const bool finalizing = _Py_IsFinalizing();
#endif
    if (!Py_IsInitialized() || finalizing) {
      bridge_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    bridge_ = py::object();
  }

  std::vector<std::string> ListArguments() override {
    py::gil_scoped_acquire gil;  // held while the result is converted, too
    return Call("list_arguments").cast<std::vector<std::string>>();
  }
  std::vector<std::string> ListOutputs() override {
    py::gil_scoped_acquire gil;  // held while the result is converted, too
    return Call("list_outputs").cast<std::vector<std::string>>();
  }
  std::vector<std::string> ListAuxiliaryStates() override {
    py::gil_scoped_acquire gil;  // held while the result is converted, too
    return Call("list_auxiliary_states").cast<std::vector<std::string>>();
  }
  bool NeedTopGrad() override {
    py::gil_scoped_acquire gil;
    return Call("need_top_grad").cast<bool>();
  }

  bool InferShape(std::vector<Shape>* in, std::vector<Shape>* out) override {
    return Infer<Shape>(
        "infer_shape", in, out, [](const Shape& s) { return ShapeToPy(s); },
        [](const py::handle& h) { return ShapeFromPy(h); });
  }

  bool InferType(std::vector<DType>* in, std::vector<DType>* out) override {
    return Infer<DType>(
        "infer_type", in, out,
        [](DType t) -> py::object {
          if (t == DType::kUnknown) return py::none();
          return py::str(DTypeName(t));
        },
        [](const py::handle& h) {
          return h.is_none() ? DType::kUnknown : DTypeFromName(h.cast<std::string>());
        });
  }

  void Forward(bool is_train, const std::vector<OpReqType>& req,
               const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
               const std::vector<NDArray>& aux) override {
    py::gil_scoped_acquire gil;
    Call("forward", is_train, ReqsToPy(req), in_data, out_data, aux);
  }

  void Backward(const std::vector<OpReqType>& req, const std::vector<NDArray>& out_grad,
                const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                const std::vector<NDArray>& in_grad, const std::vector<NDArray>& aux,
                float loss_scale) override {
    py::gil_scoped_acquire gil;
    Call("backward", ReqsToPy(req), out_grad, in_data, out_data, in_grad, aux, loss_scale);
  }

 private:
  /*! \brief bridge.<method>(args...), a Python error turned into a symnet::Error. */
  template <typename... Args>
  py::object Call(const char* method, Args&&... args) {
    py::gil_scoped_acquire gil;
    try {
      return bridge_.attr(method)(std::forward<Args>(args)...);
    } catch (py::error_already_set& e) {
      throw Error("Custom operator (op_type '" + op_type_ + "'): " + method + " failed:\n" +
                  DescribePythonError(e));
    }
  }

  /*! \brief The bridge's rule gets every input's entry (it hands the user's rule only the
   *  arguments', as MXNet) and answers (arguments, outputs, aux states), or None when it cannot
   *  tell yet. */
  template <typename T, typename ToPy, typename FromPy>
  bool Infer(const char* method, std::vector<T>* in, std::vector<T>* out, ToPy to_py,
             FromPy from_py) {
    py::gil_scoped_acquire gil;
    py::list inputs;
    for (const T& v : *in) inputs.append(to_py(v));
    py::object res = Call(method, inputs);
    if (res.is_none()) return false;
    auto parts = res.cast<py::tuple>();
    const size_t na = in->size() - py::len(parts[2]);  // the aux states come last
    auto assign = [&](std::vector<T>* v, size_t begin, const py::handle& list, bool is_input) {
      size_t i = begin;
      for (const auto& item : list) {
        const T value = from_py(item);
        T& slot = (*v)[i];
        if (!Known(slot)) {
          slot = value;
        } else if (Known(value) && !(slot == value)) {
          throw InferError{is_input, static_cast<int>(i), ToText(value), ToText(slot)};
        }
        ++i;
      }
    };
    assign(in, 0, parts[0], true);
    assign(out, 0, parts[1], false);
    assign(in, na, parts[2], true);
    for (const T& v : *in)
      if (!Known(v)) return false;
    for (const T& v : *out)
      if (!Known(v)) return false;
    return true;
  }

  static bool Known(const Shape& s) { return s.is_known(); }
  static bool Known(DType t) { return t != DType::kUnknown; }
  static std::string ToText(const Shape& s) { return s.ToString(); }
  static std::string ToText(DType t) { return DTypeName(t); }

  std::string op_type_;
  py::object bridge_;
};

}  // namespace

void InitCustomOp(py::module_& m) {
  m.def(
      "register_custom_op",
      [](const std::string& op_type, py::function make_bridge) {
        // the creator lives in a registry that is never destroyed (see custom.cc)
        auto* make = new py::function(std::move(make_bridge));
        RegisterCustomOp(op_type, [op_type, make](const std::map<std::string, std::string>& kw) {
          py::gil_scoped_acquire gil;
          try {
            return std::shared_ptr<CustomOpProp>(
                std::make_shared<PyCustomOpProp>(op_type, (*make)(kw)));
          } catch (py::error_already_set& e) {
            throw Error("Custom operator (op_type '" + op_type +
                        "'): creating its CustomOpProp failed:\n" + DescribePythonError(e));
          }
        });
      },
      "Registers a Custom op_type: make_bridge(kwargs) returns the object symnet calls.");
  m.def("list_custom_ops", &ListCustomOps);
}

}  // namespace python
}  // namespace symnet
