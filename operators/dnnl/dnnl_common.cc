/*! \brief oneDNN engine, stream, dtype mapping and support probes. */
#include "dnnl_common.h"

#include "symnet/runtime.h"

#include <string>

namespace symnet {
namespace dnnl_util {

dnnl::engine& Engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& Stream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

dnnl::memory::data_type ToDnnl(DType t) {
  using dt = dnnl::memory::data_type;
  switch (t) {
    case DType::kFloat32: return dt::f32;
    case DType::kBFloat16: return dt::bf16;
    case DType::kFloat16: return dt::f16;
    case DType::kInt32: return dt::s32;
    case DType::kInt8: return dt::s8;
    case DType::kUint8: return dt::u8;
    default: SYMNET_THROW << "oneDNN has no data type for " << t;
  }
}

bool NativeSupport(DType t) {
  if (t == DType::kFloat32) return true;
  if (t != DType::kBFloat16) return false;
  // probe once: a tiny bf16 matmul is created iff the CPU has bf16 instructions oneDNN uses
  static const bool bf16 = [] {
    try {
      using md = dnnl::memory::desc;
      const auto bf = dnnl::memory::data_type::bf16;
      md a({2, 2}, bf, dnnl::memory::format_tag::ab);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, a, a), Engine());
      return std::string(pd.impl_info_str()).find("ref") == std::string::npos;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return bf16;
}

}  // namespace dnnl_util

bool DnnlNativeBF16() { return dnnl_util::NativeSupport(DType::kBFloat16); }

}  // namespace symnet
