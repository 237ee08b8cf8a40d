/*!
 * \brief Reproducible random numbers: a global seed plus counter-based streams, so that kernels
 *  (CPU or GPU) draw element i of stream k as a pure function of (seed, k, i).
 */
#ifndef SYMNET_RANDOM_H_
#define SYMNET_RANDOM_H_

#include <cstdint>

#include "symnet/base.h"

namespace symnet {

/*! \brief Restarts all random streams from `seed` (symnet.random.seed in Python). */
void SeedRandom(uint64_t seed);
/*! \brief A fresh stream key; successive calls give different, seed-determined keys. */
uint64_t NextRandomStream();

/*! \brief SplitMix64 finaliser: a strong 64-bit mix. */
SYMNET_XINLINE uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/*! \brief Uniform in [0, 1) for element `i` of stream `key` (24 random bits). */
SYMNET_XINLINE float UniformAt(uint64_t key, uint64_t i) {
  const uint64_t r = Mix64(key ^ Mix64(i + 0x9e3779b97f4a7c15ULL));
  return static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
}

}  // namespace symnet

#endif  // SYMNET_RANDOM_H_
