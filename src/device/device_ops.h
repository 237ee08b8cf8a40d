/*!
 * \brief The device memory and copy operations the device-independent code (storage, NDArray,
 *  executor) needs from the CUDA backend. Declared without CUDA headers: a build without CUDA
 *  links device_ops_nocuda.cc, whose functions raise a clear error. (Synchronize, SetDevice and
 *  the memory queries are public: symnet/runtime.h.)
 */
#ifndef SYMNET_SRC_DEVICE_DEVICE_OPS_H_
#define SYMNET_SRC_DEVICE_DEVICE_OPS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "symnet/device.h"
#include "symnet/dtype.h"
#include "symnet/runtime.h"

namespace symnet {
namespace cuda {

/*!
 * \brief `bytes` of memory on GPU `dev` from the device's pool (cudaMalloc'd blocks reused by
 *  size class). When cudaMalloc fails, the cached blocks are released and it is tried once more;
 *  then an error names the device, the request and what is in use.
 */
void* DeviceAlloc(size_t bytes, int dev);
/*! \brief Returns a block to its pool. Stream order makes immediate reuse safe: every kernel
 *  and copy of a device runs on the device's one stream. */
void DeviceFree(void* ptr, size_t bytes, int dev) noexcept;

/*! \brief Copies bytes between any two devices (CPU or GPU); returns when `dst` may be read
 *  by the host (for a GPU destination: when the copy is ordered on the destination's stream). */
void CopyBytes(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes);
/*! \brief Sets `bytes` bytes on GPU `dev` to `value` (enqueued on the device's stream). */
void Memset(void* ptr, int value, size_t bytes, int dev);
/*! \brief Sets `n` elements of dtype `t` on GPU `dev` to `value`. */
void Fill(void* ptr, DType t, size_t n, double value, int dev);
/*! \brief Converts `n` elements between dtypes, both arrays on GPU `dev` (in place allowed
 *  when the element sizes agree). */
void Convert(const void* src, DType src_type, void* dst, DType dst_type, size_t n, int dev);
/*! \brief Adds `value` to `n` elements of dtype `t` on GPU `dev`. */
void AddScalar(void* ptr, DType t, size_t n, double value, int dev);
/*! \brief dst += src converted to dst's dtype (float dtypes), both on GPU `dev`. */
void ConvertAdd(const void* src, DType src_type, void* dst, DType dst_type, size_t n, int dev);
/*! \brief Bumped whenever scratch memory of GPU `dev` that kernels may hold pointers to (the
 *  workspace, ones vectors) is replaced: CUDA graphs captured under an older generation must be
 *  captured again before they are replayed. */
uint64_t ScratchGeneration(int dev);
void BumpScratchGeneration(int dev);

/*! \brief Starts capturing the work this thread enqueues on GPU `dev`'s stream. */
void BeginCapture(int dev);
/*! \brief Ends the capture: the instantiated graph, or null when capturing failed (the captured
 *  work did not run; the caller runs it normally). */
void* EndCapture(int dev);
/*! \brief Enqueues a captured graph on GPU `dev`'s stream. */
void LaunchGraph(int dev, void* graph);
void DestroyGraph(void* graph) noexcept;

}  // namespace cuda
}  // namespace symnet

#endif  // SYMNET_SRC_DEVICE_DEVICE_OPS_H_
