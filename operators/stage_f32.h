/*!
 * \brief Runs a float32 kernel on 16-bit data: converts float16/bfloat16 inputs to float32, runs,
 *  and rounds the results back (accumulating for kAddTo). This is how ops without native 16-bit
 *  kernels on this CPU (float16 everywhere, bfloat16 without AVX512-BF16) produce correctly
 *  rounded 16-bit results.
 */
#ifndef SYMNET_OPERATORS_STAGE_F32_H_
#define SYMNET_OPERATORS_STAGE_F32_H_

#include <vector>

#include "symnet/op_attr_types.h"

namespace symnet {
namespace ops {

/*! \brief True when any blob is float16 or bfloat16. */
bool Has16Bit(const std::vector<TBlob>& blobs);

/*! \brief Calls `f32_kernel` with every 16-bit blob replaced by a float32 copy. */
void StagedF32Compute(const FCompute& f32_kernel, const NodeAttrs& attrs, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_STAGE_F32_H_
