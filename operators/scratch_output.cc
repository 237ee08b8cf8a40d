/*! \brief Outputs through a scratch buffer (see scratch_output.h). */
#include "scratch_output.h"

#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

void* ScratchFor(StoragePtr* scratch, const TBlob& out, OpReqType req) {
  if (req == kWriteTo || req == kWriteInplace) return out.dptr_;
  if (!*scratch || (*scratch)->bytes() < out.Bytes())
    *scratch = AllocStorage(out.Bytes(), Device::CPU());
  return (*scratch)->ptr();
}

void AddScratch(const void* result, const TBlob& out, OpReqType req) {
  if (req != kAddTo) return;
  SYMNET_FLOAT_TYPE_SWITCH(out.dtype_, T, {
    const T* r = static_cast<const T*>(result);
    T* o = out.dptr<T>();
    for (int64_t i = 0; i < out.Size(); ++i)
      AssignReq<kAddTo>(&o[i], static_cast<AccType<T>>(r[i]));
  });
}

}  // namespace ops
}  // namespace symnet
