/*! \brief How an NDArray of each dtype is summed across ranks (symnet::dist). */
#ifndef SYMNET_SRC_DIST_WIRE_H_
#define SYMNET_SRC_DIST_WIRE_H_

#include "symnet/dtype.h"
#include "transport.h"

namespace symnet {
namespace dist {

/*! \brief float16/bfloat16 are summed in float32 (their sum would round at every step), float64
 *  in float64, integers and bool in int64. */
inline transport::Wire WireOf(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16:
      return transport::Wire::kFloat32;
    case DType::kFloat64:
      return transport::Wire::kFloat64;
    default:
      return transport::Wire::kInt64;
  }
}

inline DType WireDType(transport::Wire w) {
  return w == transport::Wire::kFloat32   ? DType::kFloat32
         : w == transport::Wire::kFloat64 ? DType::kFloat64
                                          : DType::kInt64;
}

}  // namespace dist
}  // namespace symnet

#endif  // SYMNET_SRC_DIST_WIRE_H_
