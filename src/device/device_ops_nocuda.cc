/*! \brief device_ops.h in a build without CUDA: every GPU operation is a clear error. */
#include "device_ops.h"
#include "symnet/base.h"

namespace symnet {
namespace cuda {

namespace {
[[noreturn]] void NoCUDA(const char* what, int dev) {
  SYMNET_THROW << "cannot " << what << " on gpu(" << dev
               << "): symnet was built without CUDA (rebuild with -DSYMNET_USE_CUDA=ON on a "
                  "machine with the CUDA toolkit)";
}
}  // namespace

void* DeviceAlloc(size_t, int dev) { NoCUDA("allocate memory", dev); }
void DeviceFree(void*, size_t, int) noexcept {}
void CopyBytes(void*, Device dst_dev, const void*, Device src_dev, size_t) {
  NoCUDA("copy", dst_dev.type == Device::kGPU ? dst_dev.id : src_dev.id);
}
void Memset(void*, int, size_t, int dev) { NoCUDA("set memory", dev); }
void Fill(void*, DType, size_t, double, int dev) { NoCUDA("fill an array", dev); }
void Convert(const void*, DType, void*, DType, size_t, int dev) { NoCUDA("convert an array", dev); }
void AddScalar(void*, DType, size_t, double, int dev) { NoCUDA("add to an array", dev); }
void ConvertAdd(const void*, DType, void*, DType, size_t, int dev) {
  NoCUDA("accumulate an array", dev);
}
void Synchronize(int dev) { NoCUDA("synchronize", dev); }
void SetDevice(int dev) { NoCUDA("run", dev); }
void MemInfo(int dev, size_t*, size_t*) { NoCUDA("query memory", dev); }
MemoryStats GetMemoryStats(int) { return {}; }
uint64_t ScratchGeneration(int) { return 0; }
void BumpScratchGeneration(int) {}
void BeginCapture(int dev) { NoCUDA("capture a CUDA graph", dev); }
void* EndCapture(int dev) { NoCUDA("capture a CUDA graph", dev); }
void LaunchGraph(int dev, void*) { NoCUDA("launch a CUDA graph", dev); }
void DestroyGraph(void*) noexcept {}

}  // namespace cuda
}  // namespace symnet
