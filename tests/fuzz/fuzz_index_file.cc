/*! \brief Fuzz target: MXNet .idx files ("key<TAB>offset" lines) as ImageRecordIter reads them. */
#include "fuzz_util.h"
#include "symnet/recordio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  symnet::fuzz::ExpectOnlySymnetErrors(
      [&] { symnet::ParseIndexFile(symnet::fuzz::AsString(data, size), "fuzz.idx"); });
  return 0;
}
