/*! \brief NDArray bindings: numpy in and out, views, fill and copies. */
#include "bindings.h"
#include "dlpack_abi.h"
#include "symnet/autograd.h"
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

// ---- DLPack: arrays shared with other frameworks (and numpy) without a copy -----------------

/*! \brief The DLPack element type of a symnet dtype (bool as DLPack 0.8's kDLBool). */
dlpack::DLDataType ToDLDataType(DType t) {
  const uint8_t bits = static_cast<uint8_t>(DTypeSize(t) * 8);
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
      return {dlpack::kDLFloat, bits, 1};
    case DType::kBFloat16:
      return {dlpack::kDLBfloat, bits, 1};
    case DType::kUint8:
      return {dlpack::kDLUInt, bits, 1};
    case DType::kBool:
      return {dlpack::kDLBool, bits, 1};
    default:
      return {dlpack::kDLInt, bits, 1};
  }
}

/*! \brief The symnet dtype of a DLPack element type; an error for the ones symnet lacks. */
DType FromDLDataType(const dlpack::DLDataType& t) {
  const int code = t.code, bits = t.bits;
  if (t.lanes == 1) {
    if (code == dlpack::kDLFloat && bits == 32) return DType::kFloat32;
    if (code == dlpack::kDLFloat && bits == 64) return DType::kFloat64;
    if (code == dlpack::kDLFloat && bits == 16) return DType::kFloat16;
    if (code == dlpack::kDLBfloat && bits == 16) return DType::kBFloat16;
    if (code == dlpack::kDLUInt && bits == 8) return DType::kUint8;
    if (code == dlpack::kDLInt && bits == 8) return DType::kInt8;
    if (code == dlpack::kDLInt && bits == 32) return DType::kInt32;
    if (code == dlpack::kDLInt && bits == 64) return DType::kInt64;
    // bool: kDLBool (numpy), or MXNet 1.x's unsigned 1-bit code for its 1-byte bool
    if ((code == dlpack::kDLBool && bits == 8) || (code == dlpack::kDLUInt && bits == 1))
      return DType::kBool;
  }
  SYMNET_THROW << "from_dlpack: DLPack element type (code " << code << ", " << bits << " bits, "
               << t.lanes << " lanes) has no NDArray dtype";
}

/*! \brief What a capsule made by to_dlpack owns: the struct handed out, the shape it points at,
 *  and the array, which keeps the memory alive until the consumer calls the deleter. */
struct ExportedTensor {
  dlpack::DLManagedTensor managed;
  std::vector<int64_t> shape;
  NDArray array;
};

void DeleteExported(dlpack::DLManagedTensor* self) {
  delete static_cast<ExportedTensor*>(self->manager_ctx);
}

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

/*! \brief A capsule nobody consumed still owns its tensor: free it (DLPack's protocol; a
 *  consumer renames the capsule to "used_dltensor" and calls the deleter itself). */
void DestroyCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
  auto* m = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (m && m->deleter) m->deleter(m);
}

py::object ToDLPack(const NDArray& a) {
  SYMNET_CHECK(!a.is_none()) << "to_dlpack: the array is empty (no storage)";
  auto* e = new ExportedTensor;
  e->array = a;
  e->shape.assign(a.shape().begin(), a.shape().end());
  e->shape.reserve(1);  // a 0-d array still gets a valid shape pointer
  // the memory leaves symnet: writes there cannot bump the write version, so nothing derived
  // from these contents (reordered weights) may be cached any more
  if (a.version()) a.version()->Untrack();
  dlpack::DLTensor& t = e->managed.dl_tensor;
  t.data = a.dptr();
  const Device dev = a.device();
  t.device.device_type = dev.type == Device::kGPU         ? dlpack::kDLCUDA
                         : dev.type == Device::kCPUPinned ? dlpack::kDLCUDAHost
                                                          : dlpack::kDLCPU;
  t.device.device_id = dev.type == Device::kGPU ? dev.id : 0;
  t.ndim = static_cast<int32_t>(a.shape().ndim());
  t.dtype = ToDLDataType(a.dtype());
  t.shape = e->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = DeleteExported;
  PyObject* capsule = PyCapsule_New(&e->managed, kCapsuleName, DestroyCapsule);
  if (capsule == nullptr) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

/*! \brief The array a "dltensor" capsule describes, sharing its memory; the capsule is consumed
 *  (renamed "used_dltensor") and the producer's deleter runs when the last view goes away. */
NDArray FromDLPack(const py::capsule& capsule) {
  PyObject* cap = capsule.ptr();
  SYMNET_CHECK(PyCapsule_IsValid(cap, kCapsuleName))
      << "from_dlpack: Invalid DLPack Tensor. DLTensor capsules can be consumed only once.";
  auto* m = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(cap, kCapsuleName));
  const dlpack::DLTensor& t = m->dl_tensor;
  const DType dtype = FromDLDataType(t.dtype);
  SYMNET_CHECK(t.ndim >= 0) << "from_dlpack: ndim " << t.ndim;
  Shape s = Shape::Scalar();
  for (int32_t i = 0; i < t.ndim; ++i) s.push_back(t.shape[i]);
  // an NDArray is compact row-major: strides must say so (dims of size 1 may have any stride)
  if (t.strides != nullptr && s.Size() > 0) {
    int64_t expected = 1;
    for (int32_t i = t.ndim - 1; i >= 0; --i) {
      SYMNET_CHECK(t.shape[i] == 1 || t.strides[i] == expected)
          << "from_dlpack: only compact row-major (C-contiguous) tensors can be shared; dim " << i
          << " of shape " << s << " has stride " << t.strides[i] << ", expected " << expected;
      expected *= t.shape[i];
    }
  }
  Device dev = Device::CPU();
  if (t.device.device_type == dlpack::kDLCUDA) {
    dev = Device::GPU(t.device.device_id);
  } else if (t.device.device_type == dlpack::kDLCUDAHost) {
    dev = Device{Device::kCPUPinned, 0};
  } else {
    SYMNET_CHECK(t.device.device_type == dlpack::kDLCPU)
        << "from_dlpack: DLPack device type " << t.device.device_type
        << " is not supported (cpu, cuda and cuda_host are)";
  }
  const size_t bytes = static_cast<size_t>(s.Size()) * DTypeSize(dtype);
  void* base = t.data ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
  StoragePtr chunk(new StorageChunk(base, bytes, dev, /*owned=*/false), [m](StorageChunk* c) {
    delete c;
    if (m->deleter == nullptr || !Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;  // a Python producer's deleter drops Python references
    m->deleter(m);
  });
  // the producer may write the memory where no version bump can see it
  chunk->version().Untrack();
  PyCapsule_SetName(cap, kUsedCapsuleName);
  PyCapsule_SetDestructor(cap, nullptr);
  return NDArray(chunk, 0, s, dtype);
}

const NodePtr& TrackedNode(const NDArray& a) { return a.autograd_node(); }

LoadShapeSemantics LoadSemantics(int np_shape) {
  switch (np_shape) {
    case 0:
      return LoadShapeSemantics::kLegacy;
    case 1:
      return LoadShapeSemantics::kNumpyThread;
    case 2:
      return LoadShapeSemantics::kNumpyGlobal;
    default:
      return LoadShapeSemantics::kAny;
  }
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
      .def("at", &NDArray::At)
      // MXNet's NDArray._fresh_grad: whether a backward wrote the gradient of this array (a
      // marked variable) since the flag was last cleared; 0 for arrays autograd does not track,
      // whose flag cannot be set (MXNet's error)
      .def_property(
          "fresh_grad",
          [](const NDArray& a) {
            const NodePtr& n = TrackedNode(a);
            return n && n->ag && n->ag->fresh ? 1 : 0;
          },
          [](const NDArray& a, bool state) {
            const NodePtr& n = TrackedNode(a);
            SYMNET_CHECK(n && n->ag)
                << "NDArray has not been marked as a variable and does not have gradient state";
            n->ag->fresh = state;
          })
      .def("to_dlpack", &ToDLPack);
  m.def("from_dlpack", &FromDLPack);
  // from_numpy(zero_copy=True): an NDArray over a C-contiguous numpy array's buffer, holding a
  // reference to the array (numpy exports no read-only array over DLPack, and MXNet's from_numpy
  // makes the array read-only, so a second from_numpy of it must not go through DLPack)
  m.def("share_numpy", [](const py::array& src) {
    SYMNET_CHECK(src.flags() & py::array::c_style)
        << "from_numpy: only C-contiguous arrays can be shared";
    const DType dtype = DTypeFromNumpy(src.dtype());
    std::vector<int64_t> dims(src.shape(), src.shape() + src.ndim());
    const Shape s = src.ndim() == 0 ? Shape::Scalar() : Shape(dims);
    auto* owner = new py::object(src);
    StoragePtr chunk(
        new StorageChunk(const_cast<void*>(src.data()), static_cast<size_t>(src.nbytes()),
                         Device::CPU(), /*owned=*/false),
        [owner](StorageChunk* c) {
          delete c;
          if (!Py_IsInitialized()) return;
          py::gil_scoped_acquire gil;
          delete owner;
        });
    chunk->version().Untrack();  // whoever else holds the buffer may write it unseen
    return NDArray(chunk, 0, s, dtype);
  });

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
  // numpy_shape: MXNet's np_shape while saving (the V3 layout); np_shape for loads: -1 takes
  // every layout, 0 legacy, 1 one thread's np_shape, 2 set_np_shape(2) (LoadShapeSemantics)
  m.def(
      "save_ndarrays",
      [](const std::string& path, const std::vector<NDArray>& arrays,
         const std::vector<std::string>& names,
         bool numpy_shape) { SaveNDArrays(path, arrays, names, numpy_shape); },
      py::arg("path"), py::arg("arrays"), py::arg("names"), py::arg("numpy_shape") = false);
  m.def(
      "load_ndarrays",
      [](const std::string& path, int np_shape) {
        std::vector<NDArray> arrays;
        std::vector<std::string> names;
        LoadNDArrays(path, &arrays, &names, LoadSemantics(np_shape));
        return py::make_tuple(arrays, names);
      },
      py::arg("path"), py::arg("np_shape") = -1);
  m.def(
      "save_ndarrays_bytes",
      [](const std::vector<NDArray>& arrays, const std::vector<std::string>& names,
         bool numpy_shape) { return py::bytes(SaveNDArrayList(arrays, names, numpy_shape)); },
      py::arg("arrays"), py::arg("names"), py::arg("numpy_shape") = false);
  m.def(
      "load_ndarrays_bytes",
      [](const py::bytes& data, int np_shape) {
        std::vector<NDArray> arrays;
        std::vector<std::string> names;
        LoadNDArrayList(std::string(data), &arrays, &names, "bytes", LoadSemantics(np_shape));
        return py::make_tuple(arrays, names);
      },
      py::arg("data"), py::arg("np_shape") = -1);
  m.def("dtype_from_numpy",
        [](const py::dtype& dt) { return std::string(DTypeName(DTypeFromNumpy(dt))); });
}

}  // namespace python
}  // namespace symnet
