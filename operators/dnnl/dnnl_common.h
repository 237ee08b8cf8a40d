/*!
 * \brief What the oneDNN-backed operators share: dtype mapping and Noted (the engine, stream and
 *  probes are the device layer's: src/device/dnnl_runtime.h). Every oneDNN call goes through
 *  operators/dnnl/ or src/device/dnnl_runtime.cc, so API changes between oneDNN versions stay
 *  in these two places.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_COMMON_H_
#define SYMNET_OPERATORS_DNNL_DNNL_COMMON_H_

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "src/device/dnnl_runtime.h"
#include "symnet/dtype.h"

namespace symnet {
namespace dnnl_util {

/*! \brief oneDNN's data type for a DType (f32, bf16, f16, s32, s8, u8); throws for others. */
dnnl::memory::data_type ToDnnl(DType t);
/*! \brief NotePrimitive for a primitive descriptor; returns `pd` to be used inline. */
template <typename PD>
const PD& Noted(const char* what, const PD& pd) {
  NotePrimitive(what, pd.impl_info_str());
  return pd;
}

/*! \brief Whether oneDNN picked one of its reference (plain loop) implementations. */
template <typename PD>
bool IsReference(const PD& pd) {
  return std::string(pd.impl_info_str()).find("ref") != std::string::npos;
}

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_COMMON_H_
