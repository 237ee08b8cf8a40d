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
/*! \brief Input names of an op node (FListInputNames, else "data" / arg%d). */
std::vector<std::string> InputNames(const Node& n);
/*! \brief "fc1_output", "bn_mean", or the variable name. */
std::string OutputName(const NodeEntry& e);
uint32_t NumVisibleOutputs(const Node& n);
/*! \brief A variable's "__shape__" text, with MXNet's 0 = unknown dim. */
Shape ParseVariableShape(const std::string& text);

}  // namespace symnet

#endif  // SYMNET_SRC_CORE_SYMBOL_UTIL_H_
