/*! \brief DType names, sizes and bulk conversion. */
#include "symnet/dtype.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdlib>
#include <ostream>

namespace symnet {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat32:
      return 4;
    case DType::kFloat64:
      return 8;
    case DType::kFloat16:
      return 2;
    case DType::kBFloat16:
      return 2;
    case DType::kUint8:
      return 1;
    case DType::kInt8:
      return 1;
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kBool:
      return 1;
    default:
      return 0;
  }
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kUint8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kUnknown:
      return "unknown";
  }
  return "invalid";
}

bool IsValidDTypeFlag(int v) { return (v >= 0 && v <= 7) || v == 12; }

DType DTypeFromName(const std::string& name) {
  static const DType kAll[] = {DType::kFloat32,  DType::kFloat64, DType::kFloat16,
                               DType::kBFloat16, DType::kUint8,   DType::kInt8,
                               DType::kInt32,    DType::kInt64,   DType::kBool};
  for (DType t : kAll)
    if (name == DTypeName(t)) return t;
  if (name == "float") return DType::kFloat32;
  if (name == "double") return DType::kFloat64;
  if (name == "half") return DType::kFloat16;
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
    int v = std::atoi(name.c_str());
    if (IsValidDTypeFlag(v)) return static_cast<DType>(v);
  }
  SYMNET_THROW << "unknown dtype '" << name
               << "'; expected one of float32, float64, float16, bfloat16, uint8, int8, int32, "
                  "int64, bool (or MXNet's numeric flag)";
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << DTypeName(t); }

namespace {
template <typename S, typename D>
void ConvertTyped(const S* src, D* dst, size_t n) {
  const int64_t len = static_cast<int64_t>(n);
#pragma omp parallel for if (len > (1 << 16))
  for (int64_t i = 0; i < len; ++i) {
    if constexpr (std::is_same<D, bool>::value) {
      dst[i] = static_cast<AccType<S>>(src[i]) != 0;
    } else if constexpr (std::is_same<D, half_t>::value || std::is_same<D, bf16_t>::value) {
      dst[i] = D(static_cast<float>(static_cast<AccType<S>>(src[i])));
    } else {
      dst[i] = static_cast<D>(static_cast<AccType<S>>(src[i]));
    }
  }
}
}  // namespace

void ConvertElements(const void* src, DType src_type, void* dst, DType dst_type, size_t n) {
  if (src_type == dst_type) {
    std::memcpy(dst, src, n * DTypeSize(src_type));
    return;
  }
  SYMNET_TYPE_SWITCH(src_type, S, {
    SYMNET_TYPE_SWITCH(dst_type, D,
                       { ConvertTyped(static_cast<const S*>(src), static_cast<D*>(dst), n); });
  });
}

bool CpuHasF16C() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
#else
  return false;
#endif
}

}  // namespace symnet
