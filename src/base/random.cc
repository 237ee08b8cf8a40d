/*! \brief The global seed and stream counter. */
#include "symnet/random.h"

#include <atomic>

namespace symnet {

namespace {
std::atomic<uint64_t> g_seed{0x5eed5eed5eedULL};
std::atomic<uint64_t> g_counter{0};
}  // namespace

void SeedRandom(uint64_t seed) {
  g_seed = seed;
  g_counter = 0;
}

uint64_t NextRandomStream() { return Mix64(g_seed.load() + Mix64(g_counter.fetch_add(1) + 1)); }

}  // namespace symnet
