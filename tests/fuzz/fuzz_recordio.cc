/*! \brief Fuzz target: a RecordIO stream read record by record, then by seeks into it. */
#include "fuzz_util.h"
#include "symnet/recordio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = symnet::fuzz::AsString(data, size);
  std::vector<size_t> offsets;
  symnet::fuzz::ExpectOnlySymnetErrors([&] {
    auto f = symnet::RecordIOFile::FromBytes(bytes, "fuzz.rec");
    std::string rec;
    size_t total = 0;
    while (true) {
      const size_t pos = f->Tell();
      if (!f->Read(&rec)) break;
      total += rec.size();
      offsets.push_back(pos);
      if (total > bytes.size() + 4 * offsets.size()) __builtin_trap();  // more out than in
    }
  });
  // seeks as an .idx file would ask for them: every 4-byte position, good or not
  symnet::fuzz::ExpectOnlySymnetErrors([&] {
    auto f = symnet::RecordIOFile::FromBytes(bytes, "fuzz.rec");
    std::string rec;
    for (size_t pos = 0; pos <= bytes.size() + 4 && pos < 256; pos += 4) {
      symnet::fuzz::ExpectOnlySymnetErrors([&] {
        f->Seek(pos);
        f->Read(&rec);
      });
    }
  });
  return 0;
}
