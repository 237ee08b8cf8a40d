/*!
 * \brief Outputs through a scratch buffer, for kernels (oneDNN primitives) that can only write
 *  their result: the scratch takes it when the request is to add (or to drop), and AddScratch
 *  then adds it into the output.
 */
#ifndef SYMNET_OPERATORS_SCRATCH_OUTPUT_H_
#define SYMNET_OPERATORS_SCRATCH_OUTPUT_H_

#include "operator_common.h"
#include "symnet/storage.h"

namespace symnet {
namespace ops {

/*! \brief Where to write `out`: itself for a write, else `*scratch` (grown to out's size; CPU). */
void* ScratchFor(StoragePtr* scratch, const TBlob& out, OpReqType req);

/*! \brief Adds a scratch result into the output for kAddTo (same layout, so element order). */
void AddScratch(const void* result, const TBlob& out, OpReqType req);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_SCRATCH_OUTPUT_H_
