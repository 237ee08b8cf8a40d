/*! \brief The symnet._core extension module: errors, features, registry and imperative calls. */
#include <dmlc/logging.h>

#include "bindings.h"
#include "symnet/runtime.h"

namespace symnet {
namespace python {

py::object ShapeToPy(const Shape& s) {
  if (!s.ndim_known()) return py::none();
  py::tuple t(s.ndim());
  for (int i = 0; i < s.ndim(); ++i) {
    if (s[i] < 0) {
      t[i] = py::none();
    } else {
      t[i] = py::int_(s[i]);
    }
  }
  return std::move(t);
}

Shape ShapeFromPy(const py::handle& obj) {
  if (obj.is_none()) return Shape();
  if (py::isinstance<py::int_>(obj)) return Shape{obj.cast<int64_t>()};
  Shape s = Shape::Scalar();
  for (const auto& d : obj) s.push_back(d.is_none() ? -1 : d.cast<int64_t>());
  return s;
}

Device DeviceFromPy(const py::handle& obj) {
  auto t = obj.cast<std::pair<int, int>>();
  return Device{static_cast<Device::Type>(t.first), t.second};
}

void InitRegistry(py::module_& m) {
  m.def("list_ops", &Op::ListNames, "Names of all registered operators.");
  m.def("op_info", [](const std::string& name) {
    const Op* op = Op::Get(name);
    py::dict d;
    d["name"] = op->name;
    d["description"] = op->description;
    py::list params, inputs;
    for (const auto& p : op->params)
      params.append(py::make_tuple(p.name, p.type_info, p.description));
    for (const auto& p : op->inputs)
      inputs.append(py::make_tuple(p.name, p.type_info, p.description));
    d["params"] = params;
    d["inputs"] = inputs;
    d["key_var_num_args"] = op->key_var_num_args;
    d["aliases"] = Op::ListAliases(op->name);
    d["is_backward"] = op->attr<TIsBackward>("TIsBackward") != nullptr;
    d["has_gradient"] = op->has_attr("FGradient");
    d["cpu"] = op->has_attr("FCompute<cpu>");
    d["gpu"] = op->has_attr("FCompute<gpu>");  // registered only in a CUDA build
    return d;
  });
  m.def(
      "invoke",
      [](const std::string& op, const std::map<std::string, std::string>& params,
         const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs) {
        py::gil_scoped_release release;
        return Invoke(op, params, inputs, outputs);
      },
      py::arg("op"), py::arg("params"), py::arg("inputs"), py::arg("outputs"));
  m.def("features", &Features);
  // the fused RNN op's CPU implementation: "auto", "dnnl" or "gemm" (runtime.h)
  m.def("set_rnn_cpu_impl", &SetRnnCpuImpl);
  m.def("rnn_cpu_impl", &RnnCpuImpl);
  m.def("num_gpus", &NumGPUs);
  // (dtype name, one-line reason): AMP's "auto" choice for a device kind ("cpu"/"gpu")
  m.def("amp_auto_dtype", [](const std::string& kind) {
    std::string why;
    const DType t = AutoAmpDType(kind == "gpu" ? Device::GPU() : Device::CPU(), &why);
    return py::make_tuple(DTypeName(t), why);
  });
  // (native?, reason when not) for float16/bfloat16 on a device kind
  m.def("native_low_precision", [](const std::string& kind, const std::string& dtype) {
    std::string why;
    const bool ok = NativeLowPrecision(kind == "gpu" ? Device::GPU() : Device::CPU(),
                                       DTypeFromName(dtype), &why);
    return py::make_tuple(ok, why);
  });
  m.def("gpu_memory_info", [](int dev) {
    size_t free_b = 0, total_b = 0;
    cuda::MemInfo(dev, &free_b, &total_b);
    return py::make_tuple(free_b, total_b);
  });
  m.def("cpu_bytes_in_use", &CPUBytesInUse,
        "Bytes of host memory symnet's arrays, arenas and kernel states hold now.");
  m.def("gpu_pool_stats", [](int dev) {
    const cuda::MemoryStats s = cuda::GetMemoryStats(dev);
    py::dict d;
    d["in_use"] = s.in_use;
    d["cached"] = s.cached;
    d["peak"] = s.peak;
    return d;
  });
  m.def(
      "synchronize",
      [](int dev) {
        if (NumGPUs() > dev) cuda::Synchronize(dev);
      },
      py::call_guard<py::gil_scoped_release>());
  m.def("built_with_cuda", &BuiltWithCUDA);
  m.def("cuda_self_test", [](int dev) {
    std::string why;
    const bool ok = cuda::SelfTest(dev, &why);
    return py::make_tuple(ok, why);
  });
  m.def(
      "resnet_cpp",
      [](int layers, const std::string& version, int classes, const py::object& shape, double mom,
         bool zero_gamma, double label_smoothing, bool channels_last) {
        models::ResNetOptions o;
        o.num_layers = layers;
        o.version = version;
        o.num_classes = classes;
        o.image_shape = ShapeFromPy(shape);
        o.bn_momentum = mom;
        o.zero_init_last_gamma = zero_gamma;
        o.label_smoothing = label_smoothing;
        o.channels_last = channels_last;
        return models::ResNet(o);
      },
      py::arg("layers"), py::arg("version"), py::arg("classes"), py::arg("shape"), py::arg("mom"),
      py::arg("zero_gamma"), py::arg("label_smoothing") = 0.0, py::arg("channels_last") = false);
  m.def("cifar_resnet_cpp", &models::CifarResNet);
  m.def("random_seed", [](uint64_t seed) { SeedRandom(seed); });
  m.def("name_reset", &NameManager::Reset);
  m.def("name_get", &NameManager::Get);
}

}  // namespace python
}  // namespace symnet

namespace {
PyObject* error_type = nullptr;

/*! \brief Raises MXNetError; the message may quote bytes of a damaged file, so decoding it
 *  never raises instead. */
void SetMXNetError(const std::string& msg) {
  PyObject* text =
      PyUnicode_DecodeUTF8(msg.data(), static_cast<Py_ssize_t>(msg.size()), "backslashreplace");
  PyErr_SetObject(error_type, text);
  Py_XDECREF(text);
}
}  // namespace

PYBIND11_MODULE(_core, m) {
  using namespace symnet::python;  // NOLINT
  m.doc() = "symnet's C++ core";
  // MXNetError subclasses RuntimeError; symnet::Error and dmlc's own errors map to it
  error_type = PyErr_NewException("symnet._core.MXNetError", PyExc_RuntimeError, nullptr);
  m.add_object("MXNetError", py::handle(error_type));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const symnet::Error& e) {
      SetMXNetError(e.what());
    } catch (const dmlc::Error& e) {
      SetMXNetError(e.what());
    }
  });
  InitRegistry(m);
  InitNDArray(m);
  InitSymbol(m);
  InitExecutor(m);
  InitAmp(m);
  InitTrain(m);
  InitCustomOp(m);
  InitAutograd(m);
  InitIO(m);
  InitDist(m);
  InitProfiler(m);
}
