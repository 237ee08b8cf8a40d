/*!
 * \brief oneDNN as a device: the CPU engine and stream, what the CPU runs natively, and the
 *  record of the implementations oneDNN chose (runtime.h). The device layer owns these so that
 *  features() and AMP's precision choice need nothing from the operators above.
 */
#include "dnnl_runtime.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "symnet/base.h"
#include "symnet/runtime.h"

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

bool NativeSupport(DType t) {
  if (t == DType::kFloat32) return true;
  if (t != DType::kBFloat16) return false;
  // probe once: a tiny bf16 matmul is created iff the CPU has bf16 instructions oneDNN uses.
  // Below avx512_core_bf16 (a CPU without them, or ONEDNN_MAX_CPU_ISA capping oneDNN there)
  // oneDNN 2.6 still runs bf16 at avx512_core, by emulating the instructions: slower than
  // float32, so not native (AMP 'auto' would pick it otherwise)
  static const bool bf16 = [] {
    const auto isa = dnnl::get_effective_cpu_isa();
    if (isa != dnnl::cpu_isa::avx512_core_bf16 && isa != dnnl::cpu_isa::avx512_core_amx &&
        isa != dnnl::cpu_isa::all)
      return false;
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

namespace {
std::mutex& NotesMutex() {
  static std::mutex mu;
  return mu;
}
std::vector<std::string>& Notes() {
  static std::vector<std::string> notes;
  return notes;
}
}  // namespace

void NotePrimitive(const char* what, const char* impl) {
  const std::string line = std::string(what) + ": " + impl;
  std::lock_guard<std::mutex> lock(NotesMutex());
  auto& notes = Notes();
  if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
}

}  // namespace dnnl_util

bool DnnlNativeBF16() { return dnnl_util::NativeSupport(DType::kBFloat16); }

std::vector<std::string> DnnlPrimitivesCreated() {
  std::lock_guard<std::mutex> lock(dnnl_util::NotesMutex());
  return dnnl_util::Notes();
}

void ClearDnnlPrimitivesCreated() {
  std::lock_guard<std::mutex> lock(dnnl_util::NotesMutex());
  dnnl_util::Notes().clear();
}

namespace {

std::string CheckedRnnImpl(const std::string& impl) {
  SYMNET_CHECK(impl == "auto" || impl == "dnnl" || impl == "gemm")
      << "RNN CPU implementation must be auto, dnnl or gemm (SYMNET_RNN_IMPL), not '" << impl
      << "'";
  return impl;
}

std::mutex& RnnImplMutex() {
  static std::mutex mu;
  return mu;
}

std::string& RnnImplSetting() {
  static std::string impl = [] {
    const char* env = std::getenv("SYMNET_RNN_IMPL");
    return CheckedRnnImpl(env && *env ? env : "auto");
  }();
  return impl;
}

}  // namespace

void SetRnnCpuImpl(const std::string& impl) {
  const std::string checked = CheckedRnnImpl(impl);
  std::lock_guard<std::mutex> lock(RnnImplMutex());
  RnnImplSetting() = checked;
}

std::string RnnCpuImpl() {
  std::lock_guard<std::mutex> lock(RnnImplMutex());
  return RnnImplSetting();
}

std::string DnnlCpuIsa() {
  using isa = dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case isa::sse41:
      return "sse41";
    case isa::avx:
      return "avx";
    case isa::avx2:
      return "avx2";
    case isa::avx512_mic:
      return "avx512_mic";
    case isa::avx512_mic_4ops:
      return "avx512_mic_4ops";
    case isa::avx512_core:
      return "avx512_core";
    case isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case isa::avx512_core_amx:
      return "avx512_core_amx";
    case isa::avx2_vnni:
      return "avx2_vnni";
    default:
      return "other";
  }
}

}  // namespace symnet
