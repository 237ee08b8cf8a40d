/*! \brief Fuzz target: optimizer-state files (prefix-NNNN.states: arrays plus a JSON meta record).
 */
#include "fuzz_util.h"
#include "symnet/train.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  symnet::fuzz::ExpectOnlySymnetErrors([&] {
    symnet::train::ParseOptimizerStates(symnet::fuzz::AsString(data, size), "fuzz.states");
  });
  return 0;
}
