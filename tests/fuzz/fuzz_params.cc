/*! \brief Fuzz target: MXNet .params bytes (nd.load / Module.load / checkpoints). */
#include "fuzz_util.h"
#include "symnet/ndarray_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  symnet::fuzz::ExpectOnlySymnetErrors([&] {
    std::vector<symnet::NDArray> arrays;
    std::vector<std::string> names;
    symnet::LoadNDArrayList(symnet::fuzz::AsString(data, size), &arrays, &names, "fuzz.params");
    // what loads must survive a save/load round trip unchanged
    const std::string again = symnet::SaveNDArrayList(arrays, names);
    std::vector<symnet::NDArray> arrays2;
    std::vector<std::string> names2;
    symnet::LoadNDArrayList(again, &arrays2, &names2, "round trip");
    if (names2 != names || arrays2.size() != arrays.size() ||
        symnet::SaveNDArrayList(arrays2, names2) != again)
      __builtin_trap();
  });
  return 0;
}
