/*! \brief Imperative AMP: the casts an imperative call makes in front of its op under amp.init. */
#ifndef SYMNET_SRC_IMPERATIVE_AMP_CASTS_H_
#define SYMNET_SRC_IMPERATIVE_AMP_CASTS_H_

#include <vector>

#include "symnet/ndarray.h"
#include "symnet/op.h"

namespace symnet {

/*!
 * \brief `inputs` of an op with attributes `attrs`, cast as the imperative AMP options say
 *  (amp::InputCasts), each cast an invoked amp_cast that autograd records while it records, so
 *  gradients come back in the inputs' own dtypes. Empty when nothing is cast or AMP is off.
 */
std::vector<NDArray> AmpCastInputs(const NodeAttrs& attrs, const std::vector<NDArray>& inputs);

}  // namespace symnet

#endif  // SYMNET_SRC_IMPERATIVE_AMP_CASTS_H_
