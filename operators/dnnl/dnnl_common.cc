/*! \brief oneDNN dtype mapping (the engine, stream and probes: src/device/dnnl_runtime.h). */
#include "dnnl_common.h"

namespace symnet {
namespace dnnl_util {

dnnl::memory::data_type ToDnnl(DType t) {
  using dt = dnnl::memory::data_type;
  switch (t) {
    case DType::kFloat32:
      return dt::f32;
    case DType::kBFloat16:
      return dt::bf16;
    case DType::kFloat16:
      return dt::f16;
    case DType::kInt32:
      return dt::s32;
    case DType::kInt8:
      return dt::s8;
    case DType::kUint8:
      return dt::u8;
    default:
      SYMNET_THROW << "oneDNN has no data type for " << t;
  }
}

}  // namespace dnnl_util
}  // namespace symnet
