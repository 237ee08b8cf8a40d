/*! \brief Helpers shared by the symbol implementation files (not public API). */
#ifndef SYMNET_SRC_CORE_SYMBOL_UTIL_H_
#define SYMNET_SRC_CORE_SYMBOL_UTIL_H_

#include <string>
#include <vector>

#include "symnet/node.h"
#include "symnet/shape.h"

namespace symnet {

/*! \brief "__x__" keys are user attributes, the rest are op parameters. */
bool IsDunderKey(const std::string& key);
/*! \brief "lr_mult" -> "__lr_mult__" (unchanged when already in that form). */
std::string DunderKey(const std::string& key);
/*! \brief Shortest round-trip text of a double, with a ".0" like Python's str(float). */
std::string FormatScalar(double v);

}  // namespace symnet

#endif  // SYMNET_SRC_CORE_SYMBOL_UTIL_H_
