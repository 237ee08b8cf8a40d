/*! \brief Float32 staging of 16-bit kernels, with the buffers kept in the call site's state. */
#include "stage_f32.h"

#include "symnet/storage.h"

namespace symnet {
namespace ops {

namespace {

bool Is16(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// Staged buffers live only for the duration of one call and calls run one at a time per
// thread, so one grow-only scratch per thread serves every call site: memory is the largest
// call's staging, not the sum over the graph (per-site buffers made an AMP ResNet-50 step on a
// CPU without native bfloat16 peak at 24 GB).
struct StagedState : public OpState {
  std::unique_ptr<OpState> inner;
};

/*! \brief This thread's staging scratch, at least `bytes` long. */
char* StagingScratch(size_t bytes) {
  thread_local StoragePtr buf;
  thread_local size_t size = 0;
  if (!buf || size < bytes) {
    buf.reset();  // free before allocating the larger one
    buf = AllocStorage(bytes, Device::CPU());
    size = bytes;
  }
  return static_cast<char*>(buf->ptr());
}

size_t Padded(size_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

bool Has16Bit(const std::vector<TBlob>& blobs) {
  for (const auto& b : blobs)
    if (Is16(b.dtype_)) return true;
  return false;
}

void StagedF32Compute(const FCompute& f32_kernel, const NodeAttrs& attrs, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out) {
  StagedState& st = ctx.GetState<StagedState>([] { return new StagedState(); },
                                              [](const StagedState&) { return true; });
  size_t total = 0;
  for (const auto* v : {&in, &out})
    for (const TBlob& b : *v)
      if (Is16(b.dtype_)) total += Padded(static_cast<size_t>(b.Size()) * 4);
  char* next = total ? StagingScratch(total) : nullptr;
  auto take = [&](size_t n) {
    char* p = next;
    next += Padded(n * 4);
    return p;
  };
  std::vector<TBlob> in32 = in, out32 = out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!Is16(in[i].dtype_)) continue;
    const size_t n = static_cast<size_t>(in[i].Size());
    in32[i].dptr_ = take(n);
    in32[i].version_ = nullptr;  // shared scratch, rewritten on every call
    in32[i].dtype_ = DType::kFloat32;
    ConvertElements(in[i].dptr_, in[i].dtype_, in32[i].dptr_, DType::kFloat32, n);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!Is16(out[i].dtype_)) continue;
    const size_t n = static_cast<size_t>(out[i].Size());
    out32[i].dptr_ = take(n);
    out32[i].version_ = nullptr;
    out32[i].dtype_ = DType::kFloat32;
    // an output that also is an input (in place) or accumulates starts from its current value
    if (req[i] == kAddTo || req[i] == kWriteInplace)
      ConvertElements(out[i].dptr_, out[i].dtype_, out32[i].dptr_, DType::kFloat32, n);
  }
  OpContext inner = ctx;
  inner.state = &st.inner;
  f32_kernel(attrs, inner, in32, req, out32);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!Is16(out[i].dtype_) || req[i] == kNullOp) continue;
    ConvertElements(out32[i].dptr_, DType::kFloat32, out[i].dptr_, out[i].dtype_,
                    static_cast<size_t>(out[i].Size()));
  }
}

}  // namespace ops
}  // namespace symnet
