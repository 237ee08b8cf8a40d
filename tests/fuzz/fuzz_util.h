/*!
 * \brief Shared by the fuzz targets. A target feeds one input to a reader and accepts exactly one
 *  outcome besides success: a symnet::Error (the clear message a user gets). Anything else (a
 *  crash, a sanitizer report, another exception, a leak, a timeout, memory beyond libFuzzer's
 *  limit) is a finding.
 */
#ifndef SYMNET_TESTS_FUZZ_FUZZ_UTIL_H_
#define SYMNET_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "symnet/base.h"

namespace symnet {
namespace fuzz {

inline std::string AsString(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/*! \brief Runs `body`; a symnet::Error is an accepted answer to a bad input. */
template <typename F>
void ExpectOnlySymnetErrors(F&& body) {
  try {
    body();
  } catch (const Error&) {
  }
}

}  // namespace fuzz
}  // namespace symnet

#endif  // SYMNET_TESTS_FUZZ_FUZZ_UTIL_H_
