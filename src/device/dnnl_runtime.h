/*!
 * \brief oneDNN's CPU engine and stream, what the CPU runs natively, and the record of the
 *  primitive implementations symnet created. The device layer's: the operators and features()
 *  both use these.
 */
#ifndef SYMNET_SRC_DEVICE_DNNL_RUNTIME_H_
#define SYMNET_SRC_DEVICE_DNNL_RUNTIME_H_

#include <oneapi/dnnl/dnnl.hpp>

#include "symnet/dtype.h"

namespace symnet {
namespace dnnl_util {

/*! \brief The process-wide CPU engine. */
dnnl::engine& Engine();
/*! \brief A CPU stream (in-order; oneDNN CPU execution is synchronous). */
dnnl::stream& Stream();
/*! \brief Whether oneDNN has native kernels for `t` on this CPU (bf16 needs AVX512 BF16/AMX). */
bool NativeSupport(DType t);
/*!
 * \brief Records the implementation oneDNN chose for a primitive symnet creates ("convolution
 *  forward: jit:avx2"), so tests can prove no reference kernel runs (DnnlPrimitivesCreated).
 */
void NotePrimitive(const char* what, const char* impl);

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_SRC_DEVICE_DNNL_RUNTIME_H_
