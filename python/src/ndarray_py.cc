/*! \brief NDArray bindings: numpy in and out, views, fill and copies. */
#include "bindings.h"
#include "symnet/collectives.h"
#include "symnet/ndarray_io.h"

namespace symnet {
namespace python {

namespace {

DType DTypeFromNumpy(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f' && size == 4) return DType::kFloat32;
  if (kind == 'f' && size == 8) return DType::kFloat64;
  if (kind == 'f' && size == 2) return DType::kFloat16;
  if (kind == 'u' && size == 1) return DType::kUint8;
  if (kind == 'i' && size == 1) return DType::kInt8;
  if (kind == 'i' && size == 4) return DType::kInt32;
  if (kind == 'i' && size == 8) return DType::kInt64;
  if (kind == 'b' && size == 1) return DType::kBool;
  SYMNET_THROW << "cannot convert a numpy array of dtype " << std::string(py::str(dt))
               << " to an NDArray";
}

/*! \brief numpy dtype name for an NDArray dtype; bfloat16 is read out as float32. */
const char* NumpyName(DType t) { return t == DType::kBFloat16 ? "float32" : DTypeName(t); }

py::array AsNumpy(const NDArray& a) {
  const DType out_t = a.dtype() == DType::kBFloat16 ? DType::kFloat32 : a.dtype();
  std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
  py::array out(py::dtype(NumpyName(a.dtype())), shape);
  a.CopyToBuffer(out.mutable_data(), out_t);
  return out;
}

void CopyFromNumpy(NDArray* dst, const py::array& src) {
  py::array c = py::array::ensure(src, py::array::c_style);
  SYMNET_CHECK(c.size() == dst->Size()) << "cannot copy a numpy array of " << c.size()
                                        << " elements into an NDArray of shape " << dst->shape();
  dst->CopyFromBuffer(c.data(), DTypeFromNumpy(c.dtype()));
}

}  // namespace

void InitNDArray(py::module_& m) {
  py::class_<NDArray>(m, "NDArray")
      .def_property_readonly("shape", [](const NDArray& a) { return ShapeToPy(a.shape()); })
      .def_property_readonly("dtype",
                             [](const NDArray& a) { return std::string(DTypeName(a.dtype())); })
      .def_property_readonly("size", [](const NDArray& a) { return a.Size(); })
      .def_property_readonly("device",
                             [](const NDArray& a) {
                               return py::make_tuple(static_cast<int>(a.device().type),
                                                     a.device().id);
                             })
      // the address leaves symnet: writes through it cannot bump the write version, so
      // nothing derived from these contents (reordered weights) may be cached any more
      .def_property_readonly("data_ptr",
                             [](const NDArray& a) {
                               if (a.version()) a.version()->Untrack();
                               return reinterpret_cast<uintptr_t>(a.dptr());
                             })
      .def("is_none", &NDArray::is_none)
      .def("asnumpy", &AsNumpy)
      .def("copy_from_numpy", &CopyFromNumpy)
      .def("copy_from", &NDArray::CopyFrom)
      .def("fill", &NDArray::Fill)
      .def("copy", &NDArray::Copy)
      .def("wait_to_read", &NDArray::WaitToRead, py::call_guard<py::gil_scoped_release>())
      .def("astype",
           [](const NDArray& a, const std::string& t) { return a.AsType(DTypeFromName(t)); })
      .def("reshape",
           [](const NDArray& a, const py::object& s) { return a.Reshape(ShapeFromPy(s)); })
      .def("slice", &NDArray::Slice)
      .def("at", &NDArray::At);

  m.def("empty", [](const py::object& shape, const std::string& dtype, const py::object& dev) {
    return NDArray(ShapeFromPy(shape), DeviceFromPy(dev), DTypeFromName(dtype));
  });
  m.def("allreduce_sum", &AllReduceSum, py::call_guard<py::gil_scoped_release>());
  m.def("from_numpy", [](const py::array& src, const std::string& dtype, const py::object& dev) {
    std::vector<int64_t> dims(src.shape(), src.shape() + src.ndim());
    Shape s = src.ndim() == 0 ? Shape::Scalar() : Shape(dims);
    NDArray a(s, DeviceFromPy(dev), DTypeFromName(dtype));
    CopyFromNumpy(&a, src);
    return a;
  });
  m.def("none_array", [] { return NDArray(); });
  m.def("save_ndarrays", &SaveNDArrays);
  m.def("load_ndarrays", [](const std::string& path) {
    std::vector<NDArray> arrays;
    std::vector<std::string> names;
    LoadNDArrays(path, &arrays, &names);
    return py::make_tuple(arrays, names);
  });
  m.def("save_ndarrays_bytes",
        [](const std::vector<NDArray>& arrays, const std::vector<std::string>& names) {
          return py::bytes(SaveNDArrayList(arrays, names));
        });
  m.def("load_ndarrays_bytes", [](const py::bytes& data) {
    std::vector<NDArray> arrays;
    std::vector<std::string> names;
    LoadNDArrayList(std::string(data), &arrays, &names, "bytes");
    return py::make_tuple(arrays, names);
  });
  m.def("dtype_from_numpy",
        [](const py::dtype& dt) { return std::string(DTypeName(DTypeFromNumpy(dt))); });
}

}  // namespace python
}  // namespace symnet
