/*!
 * \brief The DLPack C ABI (the tensor exchange structs of the DLPack specification, unversioned
 *  form: the "dltensor" capsule that MXNet 1.x, numpy's __dlpack__ and most frameworks use).
 *  Only the layout matters; written here from the specification so that no header is needed.
 */
#ifndef SYMNET_PYTHON_SRC_DLPACK_ABI_H_
#define SYMNET_PYTHON_SRC_DLPACK_ABI_H_

#include <cstdint>

namespace symnet {
namespace python {
namespace dlpack {

/*! \brief DLDeviceType values used here (kDLCUDAHost: page-locked host memory). */
enum DeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };

/*! \brief DLDataTypeCode values (kDLBool since DLPack 0.8; MXNet 1.x wrote bool as uint 1). */
enum TypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

}  // namespace dlpack
}  // namespace python
}  // namespace symnet

#endif  // SYMNET_PYTHON_SRC_DLPACK_ABI_H_
