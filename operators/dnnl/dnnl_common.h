/*!
 * \brief The one place symnet talks to oneDNN's basics: the CPU engine and stream, dtype
 *  mapping and feature probes. Every oneDNN call goes through operators/dnnl/ so API changes
 *  between oneDNN versions stay here.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_COMMON_H_
#define SYMNET_OPERATORS_DNNL_DNNL_COMMON_H_

#include <oneapi/dnnl/dnnl.hpp>

#include "symnet/dtype.h"

namespace symnet {
namespace dnnl_util {

/*! \brief The process-wide CPU engine. */
dnnl::engine& Engine();
/*! \brief A CPU stream (in-order; oneDNN CPU execution is synchronous). */
dnnl::stream& Stream();
/*! \brief oneDNN's data type for a DType (f32, bf16, f16, s32, s8, u8); throws for others. */
dnnl::memory::data_type ToDnnl(DType t);
/*! \brief Whether oneDNN has native kernels for `t` on this CPU (bf16 needs AVX512 BF16/AMX). */
bool NativeSupport(DType t);
/*!
 * \brief Records the implementation oneDNN chose for a primitive symnet creates ("convolution
 *  forward: jit:avx2"), so tests can prove no reference kernel runs (DnnlPrimitivesCreated).
 *  Returns `pd` to be used inline.
 */
void NotePrimitive(const char* what, const char* impl);
template <typename PD>
const PD& Noted(const char* what, const PD& pd) {
  NotePrimitive(what, pd.impl_info_str());
  return pd;
}

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_COMMON_H_
