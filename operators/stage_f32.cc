/*! \brief Float32 staging of 16-bit kernels, with the buffers kept in the call site's state. */
#include "stage_f32.h"

#include "symnet/storage.h"

namespace symnet {
namespace ops {

namespace {

bool Is16(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

struct StagedState : public OpState {
  std::vector<StoragePtr> in_bufs, out_bufs;
  std::vector<size_t> in_sizes, out_sizes;
  std::unique_ptr<OpState> inner;
};

StoragePtr Buffer(StoragePtr* slot, size_t* size, size_t bytes) {
  if (!*slot || *size != bytes) {
    *slot = AllocStorage(bytes, Device::CPU());
    *size = bytes;
  }
  return *slot;
}

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
  st.in_bufs.resize(in.size());
  st.in_sizes.resize(in.size());
  st.out_bufs.resize(out.size());
  st.out_sizes.resize(out.size());
  std::vector<TBlob> in32 = in, out32 = out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!Is16(in[i].dtype_)) continue;
    const size_t n = static_cast<size_t>(in[i].Size());
    StoragePtr b = Buffer(&st.in_bufs[i], &st.in_sizes[i], n * 4);
    ConvertElements(in[i].dptr_, in[i].dtype_, b->ptr(), DType::kFloat32, n);
    in32[i].dptr_ = b->ptr();
    in32[i].dtype_ = DType::kFloat32;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!Is16(out[i].dtype_)) continue;
    const size_t n = static_cast<size_t>(out[i].Size());
    StoragePtr b = Buffer(&st.out_bufs[i], &st.out_sizes[i], n * 4);
    // an output that also is an input (in place) or accumulates starts from its current value
    if (req[i] == kAddTo || req[i] == kWriteInplace)
      ConvertElements(out[i].dptr_, out[i].dtype_, b->ptr(), DType::kFloat32, n);
    out32[i].dptr_ = b->ptr();
    out32[i].dtype_ = DType::kFloat32;
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
